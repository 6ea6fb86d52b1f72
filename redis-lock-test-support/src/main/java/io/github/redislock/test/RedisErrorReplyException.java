package io.github.redislock.test;

/**
 * Thrown by {@link RedisCli} when Redis answers a command with an error reply.
 */
public class RedisErrorReplyException extends RuntimeException {

	private final String error;

	/**
	 * Creates an exception for the given error reply.
	 * @param error the error text sent by Redis, for example
	 * {@code "ERR unknown command 'FOO'"}
	 */
	public RedisErrorReplyException(String error) {
		super("Redis replied with an error: " + error);
		this.error = error;
	}

	/**
	 * Returns the error text sent by Redis, for example
	 * {@code "WRONGTYPE Operation against a key holding the wrong kind of value"}.
	 * @return the error text
	 */
	public String getError() {
		return this.error;
	}

}
