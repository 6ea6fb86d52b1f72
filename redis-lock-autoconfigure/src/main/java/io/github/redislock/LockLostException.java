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

	private final boolean alreadyReported;

	/**
	 * Create an exception for a lost lock.
	 * @param key the lock name
	 * @param fencingToken the fencing token of the lost grant
	 */
	public LockLostException(String key, long fencingToken) {
		this(key, fencingToken, false);
	}

	/**
	 * Create an exception for a lost lock, saying whether its loss was reported before.
	 * @param key the lock name
	 * @param fencingToken the fencing token of the lost grant
	 * @param alreadyReported whether the loss was reported before: see
	 * {@link #isAlreadyReported()}
	 */
	public LockLostException(String key, long fencingToken, boolean alreadyReported) {
		this(key, fencingToken, "Lock '" + key + "' (fencing token " + fencingToken
				+ ") was lost while held: its lease ran out or Redis lost it, so the work done under it may have "
				+ "overlapped with another owner; check that Redis and this JVM did not pause, or use a longer lease",
				alreadyReported);
	}

	/**
	 * Create an exception for a lock that was taken from its holder, with the reason.
	 * @param key the lock name
	 * @param fencingToken the fencing token of the lost grant
	 * @param message why the lock was lost and what to do
	 */
	public LockLostException(String key, long fencingToken, String message) {
		this(key, fencingToken, message, false);
	}

	/**
	 * Create an exception for a lock that was taken from its holder, with the reason,
	 * saying whether its loss was reported before.
	 * @param key the lock name
	 * @param fencingToken the fencing token of the lost grant
	 * @param message why the lock was lost and what to do
	 * @param alreadyReported whether the loss was reported before: see
	 * {@link #isAlreadyReported()}
	 */
	public LockLostException(String key, long fencingToken, String message, boolean alreadyReported) {
		super(key, message);
		this.fencingToken = fencingToken;
		this.alreadyReported = alreadyReported;
	}

	/**
	 * Return the fencing token of the grant that was lost.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return whether this loss was reported before this exception: logged in a warning by
	 * the watchdog (or by the grant that found the lock given to another owner) when it
	 * found it, or thrown to the holder already, from an earlier handle or an
	 * {@link LockHandle#extend extend}. A caller that cannot pass the exception on, such
	 * as {@link java.util.concurrent.locks.Lock#unlock()}, logs the loss only when it was
	 * not, so that each loss is warned about once.
	 * @return whether the loss was reported before
	 */
	public boolean isAlreadyReported() {
		return this.alreadyReported;
	}

}
