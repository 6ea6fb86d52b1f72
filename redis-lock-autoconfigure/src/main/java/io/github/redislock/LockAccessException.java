package io.github.redislock;

/**
 * Thrown when Redis could not be reached or failed while a lock was acquired or released.
 * The cause is the Redis client's exception. When thrown during acquisition the caller
 * holds nothing: a grant that Redis may have made before the failure is released in the
 * background.
 *
 * @author redis-lock
 */
public class LockAccessException extends LockException {

	/**
	 * Create an exception for a Redis failure.
	 * @param key the lock name
	 * @param operation what was being done, such as "acquire"
	 * @param cause the Redis client's exception
	 */
	public LockAccessException(String key, String operation, Throwable cause) {
		super(key, "Could not " + operation + " lock '" + key + "' because Redis failed: " + cause.getMessage()
				+ "; check that Redis is reachable (spring.data.redis.*) and answers within the command timeout",
				cause);
	}

	/**
	 * Create an exception with its own message, for a subclass.
	 * @param key the lock name
	 * @param message what went wrong and what to do
	 */
	protected LockAccessException(String key, String message) {
		super(key, message);
	}

}
