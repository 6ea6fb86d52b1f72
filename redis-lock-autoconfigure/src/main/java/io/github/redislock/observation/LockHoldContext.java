package io.github.redislock.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver.ReleaseOutcome;

/**
 * Context of a {@link LockObservationDocumentation#HELD redis.lock.held} observation.
 *
 * @author redis-lock
 */
public class LockHoldContext extends Observation.Context {

	private final String key;

	private final String lockName;

	private final long fencingToken;

	private @Nullable ReleaseOutcome outcome;

	/**
	 * Create a context for the hold of a lock.
	 * @param key the lock's key
	 * @param lockName the low-cardinality name it is reported under
	 * @param fencingToken the fencing token of the hold
	 */
	public LockHoldContext(String key, String lockName, long fencingToken) {
		this.key = key;
		this.lockName = lockName;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the lock's key, which may contain ids.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Return the low-cardinality name the lock is reported under.
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * Return the fencing token of the hold.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return how the hold ended, or {@code null} while the lock is held.
	 * @return the outcome or {@code null}
	 */
	public @Nullable ReleaseOutcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the hold ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(ReleaseOutcome outcome) {
		this.outcome = outcome;
	}

}
