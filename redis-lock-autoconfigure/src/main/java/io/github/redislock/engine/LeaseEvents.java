package io.github.redislock.engine;

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

}
