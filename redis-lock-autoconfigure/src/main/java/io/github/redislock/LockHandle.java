package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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
	 * Set the lease of this lock to the given time from now, in Redis, checked against
	 * the owner in one script; the fencing token stays the same. For a lock acquired with
	 * a fixed lease ({@link LockRequest#leaseTime(Duration)}) whose work runs longer than
	 * planned: it may be called again before each lease runs out. Prefer the watchdog (no
	 * lease time) when the length of the work is unknown: it renews the lease for as long
	 * as the lock is held and lets it expire soon after this JVM dies, whereas an
	 * extended lease outlives a crash for its whole length.
	 * <p>
	 * On a lock the watchdog renews, the lease is set once: the watchdog keeps renewing,
	 * and its next renewal sets the lease back to the watchdog's length. A lock held by
	 * several reentrant handles has one lease, which any of them extends.
	 * @param leaseTime the new lease, counted from now; may be shorter than the current
	 * one
	 * @throws IllegalArgumentException when the lease time is under 1 ms, the unit Redis
	 * counts leases in
	 * @throws IllegalStateException when this handle was closed
	 * @throws LockLostException when the lock was already lost: its lease ran out, or
	 * another owner holds it
	 * @throws LockAccessException when Redis failed; the lease is then as it was, or
	 * extended if Redis ran the script before failing
	 */
	void extend(Duration leaseTime);

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

	/**
	 * Release this hold as {@link #close()} does, without blocking the calling thread,
	 * for reactive and other asynchronous callers. Calling it again, or {@code close()},
	 * has no effect. The default runs {@code close()} on the calling thread; the handles
	 * of a {@code RedisLockEngine} send the release without waiting.
	 * @return completes once released; exceptionally with the {@link LockLostException}
	 * or {@link LockAccessException} that {@code close()} throws
	 */
	default CompletionStage<Void> closeAsync() {
		try {
			close();
			return CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
