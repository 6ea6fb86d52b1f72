package io.github.redislock;

/**
 * Thrown when a lock is asked for, or waited for, while the engine shuts down: the
 * application is stopping (its context is closing, or {@link LockTemplate#close()} was
 * called), so no new lock is granted and every thread that waited for one is woken with
 * this exception. Let the work be retried by an instance that keeps running, such as by
 * failing the request or leaving the message unacknowledged.
 *
 * @author redis-lock
 */
public class LockShutdownException extends LockException {

	/**
	 * Create an exception for a lock refused during shutdown.
	 * @param key the lock name
	 */
	public LockShutdownException(String key) {
		super(key, "Lock '" + key + "' was not acquired: the application is shutting down, so its lock engine grants "
				+ "no more locks; let an instance that keeps running retry the work");
	}

}
