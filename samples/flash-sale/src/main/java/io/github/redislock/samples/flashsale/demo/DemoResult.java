package io.github.redislock.samples.flashsale.demo;

/**
 * What came of the demo's rounds.
 *
 * @param stock the stock the unsafe and locked rounds started with
 * @param unsafe the round without the lock
 * @param locked the round with the lock
 * @param paused the paused-holder run with plain writes
 * @param fenced the paused-holder run with fenced writes
 * @author redis-lock
 */
record DemoResult(int stock, LoadResult unsafe, LoadResult locked, PausedHolderResult paused,
		PausedHolderResult fenced) {

	/**
	 * Return whether the lock did its part: the locked round sold the stock and no more,
	 * every purchase answered, and the fenced run oversold nothing because the paused
	 * holder's late write was refused.
	 * @return whether the demo passed, its exit status 0
	 */
	boolean passed() {
		boolean fencedHeld = this.fenced.combined().oversold(PausedHolderRound.STOCK) == 0
				&& this.fenced.heldStatus() == 409;
		return this.locked.oversold(this.stock) == 0 && this.locked.failed() == 0 && fencedHeld;
	}

}
