package io.github.redislock;

import java.time.Duration;

/**
 * Thrown when Redis granted a lock but fewer replicas than
 * {@link LockOptions#minReplicas()} acknowledged the grant within the
 * {@linkplain LockOptions#replicationTimeout() replication timeout}. The grant was
 * released again: had the primary failed, the promoted replica might not have known it
 * and granted the lock a second time. The caller holds nothing.
 *
 * @author redis-lock
 */
public class LockNotReplicatedException extends LockAccessException {

	private final long acknowledged;

	/**
	 * Create an exception for a grant too few replicas acknowledged.
	 * @param key the lock name
	 * @param acknowledged how many replicas acknowledged it
	 * @param required how many had to
	 * @param timeout how long the grant waited for them
	 */
	public LockNotReplicatedException(String key, long acknowledged, int required, Duration timeout) {
		super(key,
				"Lock '" + key + "' was granted but only " + acknowledged + " of the " + required
						+ " replicas required by minReplicas (redis-lock.min-replicas) acknowledged it within "
						+ timeout + ", so it was released; check that the replicas are connected and keep up "
						+ "(INFO replication), or lower min-replicas or raise redis-lock.replication-timeout");
		this.acknowledged = acknowledged;
	}

	/**
	 * Return how many replicas acknowledged the grant.
	 * @return the number of acknowledging replicas
	 */
	public long getAcknowledged() {
		return this.acknowledged;
	}

}
