package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

/**
 * What the watchdog finds about the leases it renews, reported from its tick thread.
 *
 * @author redis-lock
 */
interface LeaseEvents {

	/** The lease was renewed. */
	void renewed(LockLease lease);

	/** Redis could not be reached to renew the lease; it is tried again. */
	void renewalFailed(LockLease lease, RuntimeException ex);

	/** The lease was found lost, and marked so by this call. */
	void lost(LockLease lease);

	/**
	 * Passes what the watchdog finds on to the observer's {@link LeaseEvents}, and wakes
	 * a local waiter of a lease found lost: the lock may be free in Redis (it lapsed, or
	 * Redis lost it), and the waiters of this JVM would otherwise sleep until the lost
	 * holder's release or the end of the lease they last saw.
	 */
	static final class Waking implements LeaseEvents {

		private final LocalLocks locks;

		private final @Nullable LeaseEvents observed;

		Waking(LocalLocks locks, @Nullable LeaseEvents observed) {
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

}
