package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver;

/**
 * Reports what the watchdog finds about leases to the engine's observer, with the
 * observer's context of each lease's current hold: a lease handed from thread to thread
 * keeps its renewal schedule, so it is the latest hold that gets the report.
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
		this.observer.lost(lease.key(), (hold != null) ? hold.fencingToken() : lease.fencingToken(), contextOf(hold));
	}

	private @Nullable LockHold holdOf(LockLease lease) {
		return lease.hold();
	}

	private static @Nullable Object contextOf(@Nullable LockHold hold) {
		return (hold != null) ? hold.observerContext() : null;
	}

}
