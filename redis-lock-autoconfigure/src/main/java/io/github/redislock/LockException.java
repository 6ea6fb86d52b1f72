package io.github.redislock;

/**
 * Base class of every exception redis-lock throws. Each subclass carries the lock key it
 * is about and a message that says what to do.
 *
 * @author redis-lock
 */
public abstract class LockException extends RuntimeException {

	private final String key;

	protected LockException(String key, String message) {
		super(message);
		this.key = key;
	}

	protected LockException(String key, String message, Throwable cause) {
		super(message, cause);
		this.key = key;
	}

	/**
	 * Return the lock name, as given by the caller (without the configured key prefix).
	 * @return the lock name
	 */
	public String getKey() {
		return this.key;
	}

}
