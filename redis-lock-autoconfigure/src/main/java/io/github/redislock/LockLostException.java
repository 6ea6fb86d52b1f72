package io.github.redislock;

/**
 * Thrown when a lock was lost while its holder still ran: its lease expired (the holder
 * or Redis paused, the network failed) or Redis lost its data, so another owner may have
 * held the lock at the same time. Work done under it was not protected; use the
 * {@linkplain LockHandle#fencingToken() fencing token} to make writes safe against this.
 *
 * @author redis-lock
 */
public class LockLostException extends LockException {

	private final long fencingToken;

	/**
	 * Create an exception for a lost lock.
	 * @param key the lock name
	 * @param fencingToken the fencing token of the lost grant
	 */
	public LockLostException(String key, long fencingToken) {
		super(key, "Lock '" + key + "' (fencing token " + fencingToken
				+ ") was lost while held: its lease ran out or Redis lost it, so the work done under it may have "
				+ "overlapped with another owner; check that Redis and this JVM did not pause, or use a longer lease");
		this.fencingToken = fencingToken;
	}

	/**
	 * Create an exception for a lock that was taken from its holder, with the reason.
	 * @param key the lock name
	 * @param fencingToken the fencing token of the lost grant
	 * @param message why the lock was lost and what to do
	 */
	public LockLostException(String key, long fencingToken, String message) {
		super(key, message);
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the fencing token of the grant that was lost.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
