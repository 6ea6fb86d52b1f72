package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver;

/**
 * Reports what the watchdog finds about leases to the engine's observer, with the
 * observer's context of each lease's hold, and none once its holder released it.
 *
 * @author redis-lock
 */
final class ObservedLeases implements LeaseEvents {

	private final LockObserver observer;

	ObservedLeases(LockObserver observer) {
		this.observer = observer;
	}

	@Override
	public void renewed(LockLease lease) {
		this.observer.renewed(lease.key(), contextOf(holdOf(lease)));
	}

	@Override
	public void renewalFailed(LockLease lease, RuntimeException ex) {
		this.observer.renewalFailed(lease.key(), contextOf(holdOf(lease)), ex);
	}

	@Override
	public void lost(LockLease lease) {
		LockHold hold = holdOf(lease);
		if (hold == null && lease.hold() != null) {
			// Released as it was found lost: its release reports it.
			return;
		}
		this.observer.lost(lease.key(), (hold != null) ? hold.fencingToken() : lease.fencingToken(), contextOf(hold));
	}

	/** The lease's hold, or {@code null} once released, its holder's report ended. */
	private @Nullable LockHold holdOf(LockLease lease) {
		LockHold hold = lease.hold();
		return (hold != null && !hold.isReleased()) ? hold : null;
	}

	private static @Nullable Object contextOf(@Nullable LockHold hold) {
		return (hold != null) ? hold.observerContext() : null;
	}

}
