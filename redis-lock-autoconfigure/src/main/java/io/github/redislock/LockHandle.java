package io.github.redislock;

/**
 * One acquisition of a lock, released by {@link #close()}, typically in
 * try-with-resources:
 *
 * <pre class="code">
 * try (LockHandle lock = lockTemplate.lock("order:" + id)) {
 *     repository.save(order, lock.fencingToken());
 * }
 * </pre>
 *
 * A handle may be closed from another thread than the one that acquired it, which suits
 * asynchronous code. Locks are reentrant: a thread that acquires a lock it already holds
 * gets another handle at no cost in Redis, and the lock is released in Redis when the
 * last of its handles is closed.
 *
 * @author redis-lock
 */
public interface LockHandle extends AutoCloseable {

	/**
	 * Return the lock name, without the configured key prefix.
	 * @return the lock name
	 */
	String key();

	/**
	 * Return the fencing token of this grant: strictly greater than the token of every
	 * earlier grant of the same key, also after the key sat idle. Pass it to the resource
	 * the lock protects and have it reject writes carrying a smaller token than one it
	 * has seen, so a holder that paused past its lease cannot overwrite its successor's
	 * work. Reentrant handles share the token of the outermost grant.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return whether the lock is still held by this handle: {@code false} once it was
	 * closed, or when the lock was found lost (a renewal found it expired or owned by
	 * another, or its explicit lease ran out).
	 * @return whether the lock is held
	 */
	boolean isHeld();

	/**
	 * Release this hold. The lock is released in Redis, and a waiter is woken, when the
	 * last reentrant hold is closed. Calling it again has no effect.
	 * @throws LockLostException when the lock was lost while held, so the work done under
	 * it was not protected (thrown by the first call only)
	 * @throws LockAccessException when Redis failed during the release; the lock then
	 * expires at the end of its lease
	 */
	@Override
	void close();

}
