package io.github.redislock;

import org.jspecify.annotations.Nullable;

/**
 * Told what a {@link LockEngine} does with locks: acquisitions, holds, renewals and
 * losses, for metrics and traces. Every method does nothing by default; implement those
 * you need. An engine without an observer makes none of these calls and computes none of
 * their arguments.
 *
 * <p>
 * An acquisition that reaches Redis (or waits) is {@linkplain #acquireStarted started}
 * and {@linkplain #acquireEnded ended} in the acquiring thread (a non-blocking one,
 * {@link LockEngine#acquireAsync}, starts in the calling thread and ends in whichever
 * completes it); a successful one then becomes {@linkplain #held held} until it is
 * {@linkplain #released released}, possibly from another thread. A reentrant acquisition
 * of a lock the thread holds already is not reported: it shares the outer hold. Renewals
 * and losses found by the watchdog are reported from the watchdog thread. Each method may
 * return or receive a context object of the observer's own, such as an
 * {@code Observation}, which the engine hands back untouched.
 *
 * <p>
 * Implementations must be thread-safe and quick: they run on the locking threads and the
 * watchdog thread. An exception they throw is logged and otherwise ignored; it never
 * fails a lock operation.
 *
 * @author redis-lock
 */
public interface LockObserver {

	/**
	 * An acquisition starts: its first attempt in Redis, or its wait behind a holder of
	 * this JVM.
	 * @param key the lock name
	 * @param name the low-cardinality name the request carries, such as the annotated
	 * method, or {@code null} when it has none
	 * @return a context for {@link #acquireEnded} and {@link #held}, or {@code null}
	 */
	default @Nullable Object acquireStarted(String key, @Nullable String name) {
		return null;
	}

	/**
	 * An acquisition ended.
	 * @param key the lock name
	 * @param context what {@link #acquireStarted} returned
	 * @param outcome whether the lock was acquired, and why not
	 * @param waitNanos how long the acquisition took
	 * @param failure the exception the caller gets, for {@link AcquireOutcome#FAILED} and
	 * {@link AcquireOutcome#INTERRUPTED}; {@code null} otherwise
	 */
	default void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
			@Nullable Throwable failure) {
	}

	/**
	 * A lock is held now, after an acquisition ended with
	 * {@link AcquireOutcome#ACQUIRED}.
	 * @param key the lock name
	 * @param name the low-cardinality name the request carries, or {@code null}
	 * @param fencingToken the fencing token of the hold
	 * @param acquireContext what {@link #acquireStarted} returned
	 * @return a context for {@link #released}, {@link #renewed}, {@link #renewalFailed}
	 * and {@link #lost}, or {@code null}
	 */
	default @Nullable Object held(String key, @Nullable String name, long fencingToken,
			@Nullable Object acquireContext) {
		return null;
	}

	/**
	 * A hold ended: its last handle was closed.
	 * @param key the lock name
	 * @param holdContext what {@link #held} returned; {@code null} for a lock handed to a
	 * waiter that gave up before taking it
	 * @param outcome whether the lock was still held when released
	 * @param failure the exception the caller gets, for {@link ReleaseOutcome#LOST} and
	 * {@link ReleaseOutcome#FAILED}; {@code null} otherwise
	 */
	default void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
			@Nullable Throwable failure) {
	}

	/**
	 * The watchdog renewed the lease of a held lock.
	 * @param key the lock name
	 * @param holdContext what {@link #held} returned for its current hold, or
	 * {@code null}
	 */
	default void renewed(String key, @Nullable Object holdContext) {
	}

	/**
	 * The watchdog could not reach Redis to renew a lease; it tries again until the lease
	 * runs out, and then reports the lock {@linkplain #lost lost}.
	 * @param key the lock name
	 * @param holdContext what {@link #held} returned for its current hold, or
	 * {@code null}
	 * @param failure the Redis client's exception
	 */
	default void renewalFailed(String key, @Nullable Object holdContext, Throwable failure) {
	}

	/**
	 * A held lock was found lost: a renewal found it expired or owned by another, its
	 * lease ran out while Redis could not be reached, or its release found it gone.
	 * Reported once per grant, as soon as it is found; the hold itself ends when it is
	 * {@linkplain #released released}, with {@link ReleaseOutcome#LOST}.
	 * @param key the lock name
	 * @param fencingToken the fencing token of the lost hold
	 * @param holdContext what {@link #held} returned for its current hold, or
	 * {@code null}
	 */
	default void lost(String key, long fencingToken, @Nullable Object holdContext) {
	}

	/**
	 * How an acquisition ended.
	 */
	enum AcquireOutcome {

		/** The lock was acquired. */
		ACQUIRED,

		/** The lock stayed held by another owner for the whole wait time. */
		TIMED_OUT,

		/** Redis failed; the caller gets a {@code LockAccessException}. */
		FAILED,

		/**
		 * The thread was interrupted while waiting, or a non-blocking acquisition was
		 * cancelled.
		 */
		INTERRUPTED

	}

	/**
	 * How a hold ended.
	 */
	enum ReleaseOutcome {

		/** The lock was released, in Redis or by handing it to a waiter of this JVM. */
		RELEASED,

		/** The lock had been lost while held; the caller gets a LockLostException. */
		LOST,

		/**
		 * Redis failed during the release; the lock expires at the end of its lease.
		 */
		FAILED

	}

}
