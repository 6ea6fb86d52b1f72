package io.github.redislock;

/**
 * Thrown when a thread waiting for a lock is interrupted. The thread's interrupt status
 * is set again before this is thrown, and the caller holds nothing.
 *
 * @author redis-lock
 */
public class LockInterruptedException extends LockException {

	/**
	 * Create an exception for an interrupted wait.
	 * @param key the lock name
	 * @param cause the interruption
	 */
	public LockInterruptedException(String key, InterruptedException cause) {
		super(key, "Interrupted while waiting for lock '" + key + "'; nothing was locked", cause);
	}

}
