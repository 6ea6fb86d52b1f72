package io.github.redislock.engine;

/**
 * Hands a released hold straight to a thread of this JVM that waits for the lock, without
 * a round trip: the grant in Redis stays as it is, and the waiter wakes owning it, with
 * the next fencing token ({@link LockHold#successor}).
 *
 * <p>
 * Only for a kind that {@linkplain LockKind#handsOver() hands over}, and only a renewed
 * lease, since a waiter asks for the lease length the watchdog keeps. At most
 * {@value #MAX_HANDOFFS} times in a row, so that waiters in other JVMs get their turn:
 * the release that ends a chain goes through Redis and wakes them. The new hold takes the
 * place of the released one in {@link LocalHolds} only if that is still there: a grant by
 * Redis to another owner of this JVM that came between means the lease being handed over
 * had ended in Redis, and nobody is woken.
 *
 * @author redis-lock
 */
final class LocalHandOver {

	/** How many times in a row a lock may pass between threads of this JVM. */
	static final int MAX_HANDOFFS = 16;

	private final LocalHolds holds;

	private final ReleaseSubscriptions subscriptions;

	LocalHandOver(LocalHolds holds, ReleaseSubscriptions subscriptions) {
		this.holds = holds;
		this.subscriptions = subscriptions;
	}

	/**
	 * Hand a hold its handles all released to the first local waiter of the channel that
	 * accepts it.
	 * @return whether a waiter took it; if not, the caller releases it in Redis
	 */
	boolean handOver(LockHold hold, String channel) {
		return mayHandOver(hold) && this.subscriptions.handOff(channel, hold::successor, (next) -> install(hold, next));
	}

	private boolean mayHandOver(LockHold hold) {
		LockLease lease = hold.lease();
		return lease.kind().handsOver() && lease.isRenewed() && !lease.isLost() && hold.handoffs() < MAX_HANDOFFS;
	}

	private boolean install(LockHold previous, LockHold next) {
		if (!this.holds.handedOver(previous, next)) {
			return false;
		}
		next.lease().heldBy(next);
		return true;
	}

}
