package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * Distributed locks, implemented by {@link LockTemplate}. Each method takes a lock name
 * (or a {@link LockRequest}) and either runs an action under the lock or returns a
 * {@link LockHandle} to release.
 *
 * <p>
 * Locks are exclusive across every JVM that uses the same Redis and key prefix, reentrant
 * for the thread that holds them, and renewed by a watchdog while held unless a fixed
 * lease is requested.
 *
 * @author redis-lock
 */
public interface LockOperations {

	/**
	 * Acquire the lock, waiting up to the default wait time, run the action and release.
	 * @param <T> the result type
	 * @param key the lock name
	 * @param action the work to do under the lock
	 * @return the action's result
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockLostException when the lock was lost while the action ran; the action's
	 * result is then discarded, since it was computed without protection
	 * @throws LockAccessException when Redis failed
	 */
	default <T> T execute(String key, Supplier<T> action) {
		return execute(LockRequest.of(key), action);
	}

	/**
	 * Acquire the lock as requested, run the action and release.
	 * @param <T> the result type
	 * @param request the lock name, wait and lease
	 * @param action the work to do under the lock
	 * @return the action's result
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockLostException when the lock was lost while the action ran
	 * @throws LockAccessException when Redis failed
	 */
	<T> T execute(LockRequest request, Supplier<T> action);

	/**
	 * Acquire the lock, waiting up to the default wait time, run the action and release.
	 * @param key the lock name
	 * @param action the work to do under the lock
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockLostException when the lock was lost while the action ran
	 * @throws LockAccessException when Redis failed
	 */
	default void run(String key, Runnable action) {
		run(LockRequest.of(key), action);
	}

	/**
	 * Acquire the lock as requested, run the action and release.
	 * @param request the lock name, wait and lease
	 * @param action the work to do under the lock
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockLostException when the lock was lost while the action ran
	 * @throws LockAccessException when Redis failed
	 */
	default void run(LockRequest request, Runnable action) {
		execute(request, () -> {
			action.run();
			return null;
		});
	}

	/**
	 * Try to acquire the lock, waiting up to the given time.
	 * @param key the lock name
	 * @param waitTime how long to wait; {@link Duration#ZERO} makes a single attempt
	 * @return a handle to close, or empty when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when the thread was interrupted while waiting
	 */
	default Optional<LockHandle> tryLock(String key, Duration waitTime) {
		return tryLock(LockRequest.of(key).waitTime(waitTime));
	}

	/**
	 * Try to acquire the lock as requested.
	 * @param request the lock name, wait and lease
	 * @return a handle to close, or empty when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when the thread was interrupted while waiting
	 */
	Optional<LockHandle> tryLock(LockRequest request);

	/**
	 * Acquire the lock, waiting up to the default wait time.
	 * @param key the lock name
	 * @return a handle to close
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when the thread was interrupted while waiting
	 */
	default LockHandle lock(String key) {
		return lock(LockRequest.of(key));
	}

	/**
	 * Acquire the read lock of the given name, shared with other readers, waiting up to
	 * the default wait time.
	 * @param key the lock name
	 * @return a handle to close
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when the thread was interrupted while waiting
	 * @throws IllegalStateException when the thread holds the read lock only and asks to
	 * upgrade
	 * @see LockMode#READ
	 */
	default LockHandle readLock(String key) {
		return lock(LockRequest.read(key));
	}

	/**
	 * Acquire the write lock of the given name, excluding readers and other writers,
	 * waiting up to the default wait time.
	 * @param key the lock name
	 * @return a handle to close
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when the thread was interrupted while waiting
	 * @throws IllegalStateException when the thread holds the read lock of that name
	 * only: a reader cannot upgrade
	 * @see LockMode#WRITE
	 */
	default LockHandle writeLock(String key) {
		return lock(LockRequest.write(key));
	}

	/**
	 * Take one of the given number of permits of a name, waiting up to the default wait
	 * time: at most {@code limit} holders at once across every JVM, each renewed while it
	 * runs and released by closing its handle.
	 * @param key the name the permits share
	 * @param limit how many may hold a permit at once, at least 1
	 * @return the handle of the permit, to close in a try-with-resources block
	 * @throws LockTimeoutException if no permit came free within the wait time
	 * @see LockRequest#permit(String, int)
	 */
	default LockHandle permit(String key, int limit) {
		return lock(LockRequest.permit(key, limit));
	}

	/**
	 * Acquire the lock as requested.
	 * @param request the lock name, wait and lease
	 * @return a handle to close
	 * @throws LockTimeoutException when the lock was not acquired within the wait time
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when the thread was interrupted while waiting
	 */
	LockHandle lock(LockRequest request);

	/**
	 * Return whether the lock of the given name is held now, by anyone anywhere: an
	 * exclusive or fair lock, or a read/write lock by a reader or a writer. One round
	 * trip.
	 * <p>
	 * The answer may be stale the moment it returns: the lock may be released or taken
	 * right after. Use it for monitoring and tests, never to decide whether to do the
	 * work the lock protects: for that, {@link #tryLock(String, Duration)} with
	 * {@link Duration#ZERO} makes the check and takes the lock at once.
	 * @param key the lock name
	 * @return whether the lock is held
	 * @throws LockAccessException when Redis failed
	 */
	default boolean isLocked(String key) {
		return remainingLease(key).isPresent();
	}

	/**
	 * Return how long the lock of the given name is still held for, by anyone anywhere;
	 * for a read lock held by several readers, the longest of their leases. One round
	 * trip; stale the moment it returns, as {@link #isLocked(String)}. A lock the
	 * watchdog renews shows what is left until its next renewal.
	 * @param key the lock name
	 * @return the lease left, or empty when the lock is free
	 * @throws LockAccessException when Redis failed
	 */
	Optional<Duration> remainingLease(String key);

	/**
	 * Acquire several locks, one after another in the order given, within one wait
	 * budget: the first request's wait time, which each later lock shares, waiting only
	 * for what the earlier ones left of it (their own wait times are not read). When the
	 * first request has no wait time, each lock waits as {@link #lock(LockRequest)}
	 * would; {@link LockTemplate} uses its default wait time as the budget instead.
	 *
	 * <p>
	 * Callers that take the same locks from several threads must list them in the same
	 * order, such as sorted by name, or two of them may each hold a lock the other waits
	 * for until the budget runs out.
	 * @param requests the locks, in the order to take them; at least one
	 * @return the locks, held, to close together
	 * @throws LockTimeoutException when a lock was not acquired within what was left of
	 * the budget; it names that lock and the whole budget, and the locks already taken
	 * are released
	 * @throws LockAccessException when Redis failed; the locks already taken are released
	 * @throws LockInterruptedException when the thread was interrupted while waiting; the
	 * locks already taken are released
	 * @throws IllegalArgumentException when there is no request
	 */
	default LockGroup lockAll(List<LockRequest> requests) {
		OrderedAcquisition.requireNotEmpty(requests);
		return OrderedAcquisition.lockAll(this, requests, requests.get(0).waitTime());
	}

	/**
	 * Return the lock of the given name as a {@link Lock}, for code written against the
	 * JDK's interface. See {@link #asLock(LockRequest)}.
	 * @param key the lock name
	 * @return a reentrant, exclusive {@code Lock} over this object
	 * @throws IllegalArgumentException if the key breaks {@link LockRules#key}
	 */
	default FencedLock asLock(String key) {
		return asLock(LockRequest.of(key));
	}

	/**
	 * Return the requested lock as a {@link Lock} with the JDK's contract, held across
	 * every JVM that uses the same Redis, like the other methods here:
	 * <ul>
	 * <li>{@code lock()} waits without bound and is not interruptible: an interrupt while
	 * it waits is remembered, the wait goes on, and the thread's interrupt status is set
	 * again once it holds the lock;</li>
	 * <li>{@code lockInterruptibly()} and {@code tryLock(long, TimeUnit)} throw
	 * {@link InterruptedException} (clearing the interrupt status) when the thread is
	 * interrupted before or while waiting, and then hold nothing; a negative time is no
	 * wait;</li>
	 * <li>{@code tryLock()} makes one attempt without waiting, asking Redis even when
	 * others wait, as the JDK's {@code tryLock()} barges even into a fair lock;</li>
	 * <li>the lock is reentrant per thread: each successful {@code lock()} or
	 * {@code tryLock} must be matched by one {@code unlock()} from the same thread, and
	 * the lock is released in Redis by the last; {@code unlock()} by a thread that does
	 * not hold it through this {@code Lock} throws
	 * {@link IllegalMonitorStateException};</li>
	 * <li>{@code newCondition()} throws {@link UnsupportedOperationException}: a lock
	 * shared across JVMs cannot signal waiters as a {@code Condition} must.</li>
	 * </ul>
	 * A lock lost while held (its lease ran out, Redis lost it) is not reported by
	 * {@code unlock()}, which returns normally: the JDK's interface has no way to say it.
	 * The loss is logged as a WARN and reported to the {@link LockObserver}; code that
	 * must know of it uses {@link #lock(LockRequest)}, whose {@link LockHandle} says so.
	 * Redis failures throw {@link LockAccessException} (unchecked) from every method that
	 * locks or unlocks; after one from {@code unlock()} the hold is given up all the
	 * same, and Redis frees the lock by the end of its lease at the latest.
	 * <p>
	 * The request's wait time is not read, since each method says how long it waits; its
	 * lease, mode, fairness and name for observers apply. A read lock is shared like the
	 * read lock of a {@link java.util.concurrent.locks.ReentrantReadWriteLock}, and a
	 * thread that holds it only gets {@link IllegalStateException} when it asks for the
	 * write lock, as from {@link #writeLock(String)}. An interrupt during {@code lock()}
	 * on a fair lock sends the thread to the back of the queue.
	 * <p>
	 * The returned {@code Lock} is thread-safe: share it between threads, and unlock it
	 * through the same instance that locked it, which keeps each thread's holds. Several
	 * {@code Lock}s of one name exclude each other as any two lock calls do, and are
	 * reentrant for a thread across them, as this object's methods are. Its
	 * {@link FencedLock#fencingToken()} reads the token of the calling thread's hold.
	 * @param request the lock name, lease, mode and fairness; reentrant
	 * @return a {@code Lock} over this object
	 * @throws IllegalArgumentException if the request was made with
	 * {@code reentrant(false)}: such a lock belongs to the acquisition, not to a thread
	 */
	default FencedLock asLock(LockRequest request) {
		return new LockAdapter(this, request);
	}

}
