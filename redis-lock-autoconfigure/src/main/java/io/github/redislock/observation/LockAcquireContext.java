package io.github.redislock.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver.AcquireOutcome;

/**
 * Context of a {@link LockObservationDocumentation#ACQUIRE redis.lock.acquire}
 * observation.
 *
 * @author redis-lock
 */
public class LockAcquireContext extends Observation.Context {

	private final String key;

	private final String lockName;

	private @Nullable AcquireOutcome outcome;

	/**
	 * Create a context for the acquisition of a lock.
	 * @param key the lock's key
	 * @param lockName the low-cardinality name it is reported under
	 */
	public LockAcquireContext(String key, String lockName) {
		this.key = key;
		this.lockName = lockName;
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
	 * Return how the acquisition ended, or {@code null} while it runs.
	 * @return the outcome or {@code null}
	 */
	public @Nullable AcquireOutcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the acquisition ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(AcquireOutcome outcome) {
		this.outcome = outcome;
	}

}
