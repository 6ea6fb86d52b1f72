package io.github.redislock.samples.flashsale.demo;

/**
 * What came of the demo's rounds.
 *
 * @param stock the stock the unsafe and locked rounds started with
 * @param unsafe the round without the lock
 * @param locked the round with the lock
 * @param paid the round with the lock and a payment for each sale
 * @param paused the paused-holder run with plain writes
 * @param fenced the paused-holder run with fenced writes
 * @author redis-lock
 */
record DemoResult(int stock, LoadResult unsafe, LoadResult locked, PaidResult paid, PausedHolderResult paused,
		PausedHolderResult fenced) {

	/**
	 * Return whether the lock did its part: the locked round sold the stock and no more,
	 * every purchase answered, the paid round sold the same way while never running more
	 * payments at once than their limit, and the fenced run oversold nothing because the
	 * paused holder's late write was refused.
	 * @return whether the demo passed, its exit status 0
	 */
	boolean passed() {
		boolean fencedHeld = this.fenced.combined().oversold(PausedHolderRound.STOCK) == 0
				&& this.fenced.heldStatus() == 409;
		LoadResult paidLoad = this.paid.load();
		boolean paidHeld = paidLoad.oversold(this.stock) == 0 && paidLoad.failed() == 0 && this.paid.withinLimit();
		return this.locked.oversold(this.stock) == 0 && this.locked.failed() == 0 && paidHeld && fencedHeld;
	}

}
