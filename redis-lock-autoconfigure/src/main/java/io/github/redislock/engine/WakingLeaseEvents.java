package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

/**
 * Passes what the watchdog finds on to the observer's {@link LeaseEvents}, and wakes a
 * local waiter of a lease found lost: the lock may be free in Redis (it lapsed, or Redis
 * lost it), and the waiters of this JVM would otherwise sleep until the lost holder's
 * release or the end of the lease they last saw.
 *
 * @author redis-lock
 */
final class WakingLeaseEvents implements LeaseEvents {

	private final LocalLocks locks;

	private final @Nullable LeaseEvents observed;

	WakingLeaseEvents(LocalLocks locks, @Nullable LeaseEvents observed) {
		this.locks = locks;
		this.observed = observed;
	}

	@Override
	public void renewed(LockLease lease) {
		if (this.observed != null) {
			this.observed.renewed(lease);
		}
	}

	@Override
	public void renewalFailed(LockLease lease, RuntimeException ex) {
		if (this.observed != null) {
			this.observed.renewalFailed(lease, ex);
		}
	}

	@Override
	public void lost(LockLease lease) {
		if (this.observed != null) {
			this.observed.lost(lease);
		}
		this.locks.wakeOne(this.locks.channel(lease.kind(), lease.key()));
	}

}
