package io.github.redislock;

import java.time.Duration;

/**
 * Thrown when a lock could not be acquired within the wait time because another owner
 * held it throughout.
 *
 * @author redis-lock
 */
public class LockTimeoutException extends LockException {

	private final Duration waitTime;

	/**
	 * Create an exception for a lock that stayed held by another owner.
	 * @param key the lock name
	 * @param waitTime how long the caller waited
	 */
	public LockTimeoutException(String key, Duration waitTime) {
		super(key, "Lock '" + key + "' is held by another owner and was not released within the wait time of "
				+ waitTime.toMillis() + " ms; raise the wait time, or treat the work as already being done elsewhere");
		this.waitTime = waitTime;
	}

	/**
	 * Return how long the caller waited before giving up.
	 * @return the wait time
	 */
	public Duration getWaitTime() {
		return this.waitTime;
	}

}
