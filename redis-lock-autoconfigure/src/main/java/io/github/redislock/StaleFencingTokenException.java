package io.github.redislock;

/**
 * Thrown when a resource refused a write because its fencing token is lower than the
 * highest the resource has seen: the lock that issued the token was lost (its holder
 * paused past the lease, or the network failed) and granted to another holder, which
 * wrote since. Nothing was written. Do not retry with the same token: redo the whole work
 * (read, decide, write) under a fresh lock, or drop it, since the newer holder may have
 * done it already.
 * <p>
 * Thrown by the fenced writes of {@code io.github.redislock.fencing}; {@link #getKey()}
 * is then the resource written, not a lock name.
 *
 * @author redis-lock
 */
public class StaleFencingTokenException extends LockException {

	private final long token;

	private final long highestToken;

	/**
	 * Create an exception for a refused write.
	 * @param resource the resource written, such as a Redis key or a table row
	 * @param token the fencing token of the refused write
	 * @param highestToken the highest fencing token the resource has seen, greater than
	 * {@code token}
	 */
	public StaleFencingTokenException(String resource, long token, long highestToken) {
		super(resource,
				"Write to '" + resource + "' with fencing token " + token + " was refused: the resource has seen token "
						+ highestToken + ", so the lock that issued token " + token
						+ " was lost and granted to another holder since; "
						+ "nothing was written: redo the work under a fresh lock rather than retrying with this token");
		this.token = token;
		this.highestToken = highestToken;
	}

	/**
	 * Return the resource whose write was refused, such as a Redis key or a table row.
	 * @return the resource
	 */
	public String getResource() {
		return getKey();
	}

	/**
	 * Return the fencing token of the refused write.
	 * @return the refused token
	 */
	public long getToken() {
		return this.token;
	}

	/**
	 * Return the highest fencing token the resource had seen when it refused the write.
	 * @return the highest token seen, greater than {@link #getToken()}
	 */
	public long getHighestToken() {
		return this.highestToken;
	}

}
