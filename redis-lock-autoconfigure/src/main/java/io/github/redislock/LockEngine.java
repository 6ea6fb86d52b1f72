package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * What grants and releases locks for a {@link LockTemplate}: one acquisition at a time,
 * with the wait already resolved, plus the engine's options and diagnostics. The one
 * implementation keeps its locks in Redis
 * ({@code io.github.redislock.engine.RedisLockEngine}); the template and the
 * auto-configuration depend on this interface only, which is what keeps the root package
 * free of the engine's internals.
 *
 * <p>
 * An engine owns threads and connections (a renewal watchdog, a subscription for
 * waiters): share one per application and {@link #close()} it when done. Implementations
 * are thread-safe.
 *
 * @author redis-lock
 * @see LockTemplate#LockTemplate(LockEngine)
 */
public interface LockEngine extends AutoCloseable {

	/**
	 * How long {@link #close()} lets holders finish before it releases their locks: 5
	 * seconds. In a Spring application the context's shutdown phase sets it instead
	 * ({@code spring.lifecycle.timeout-per-shutdown-phase}).
	 */
	Duration CLOSE_GRACE = Duration.ofSeconds(5);

	/**
	 * Return the options this engine runs with: key prefix, default wait and lease,
	 * watchdog and replication settings.
	 * @return the options
	 */
	LockOptions options();

	/**
	 * Acquire the lock a request names, waiting up to the given time. The request's own
	 * wait time is not read: the caller resolves it. A request without a lease gets the
	 * {@linkplain LockOptions#leaseTime() default lease}, and without one either, a lease
	 * the watchdog renews.
	 * @param request the lock name, kind, lease, reentrancy and name for observers
	 * @param wait how long to wait; {@link Duration#ZERO} makes a single attempt
	 * @return a handle to close, or {@code null} when the lock stayed held by another
	 * owner for the whole wait
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when the thread was interrupted, before or while
	 * waiting
	 * @throws LockNotReplicatedException when fewer replicas than required acknowledged
	 * the grant, which was given back
	 * @throws IllegalStateException when the thread holds the read lock of that name only
	 * and asks for its write lock, or when the engine was closed
	 */
	@Nullable LockHandle acquire(LockRequest request, Duration wait);

	/**
	 * Acquire the lock a request names without blocking the calling thread, waiting up to
	 * the given time, for reactive and other asynchronous callers such as
	 * {@link ReactiveLockTemplate}. As {@link #acquire(LockRequest, Duration)} but for
	 * two things:
	 * <ul>
	 * <li>no thread waits: the wait is a pending future, completed by the lock's release
	 * or its holder's lease end, with no thread parked or sleeping and no polling;</li>
	 * <li>the lock belongs to the acquisition, not to a thread: no thread re-enters it
	 * (the request's {@link LockRequest#isReentrant() reentrant} flag is not read), and
	 * threads and other acquisitions of this engine, the calling thread included, wait
	 * for it like anyone else while it is held.</li>
	 * </ul>
	 * Fair and read/write requests, fencing tokens, watchdog renewal, observers and the
	 * shutdown apply as to blocking acquisitions. Release the handle with
	 * {@link LockHandle#closeAsync()}, which does not block either.
	 * <p>
	 * Cancelling the returned future withdraws the acquisition: it stops waiting, leaves
	 * its place in a fair queue or its writer intent, and a grant that raced with the
	 * cancel is released. The default throws {@link UnsupportedOperationException}: an
	 * engine of your own that cannot acquire without blocking cannot serve a
	 * {@link ReactiveLockTemplate}.
	 * @param request the lock name, kind, lease and name for observers
	 * @param wait how long to wait; {@link Duration#ZERO} makes a single attempt
	 * @return completes with a handle, or with {@code null} when the lock stayed held by
	 * another owner for the whole wait; exceptionally with a {@link LockAccessException}
	 * when Redis failed, a {@link LockNotReplicatedException} when too few replicas
	 * acknowledged the grant, or a {@link LockShutdownException} when the engine shuts
	 * down
	 * @throws UnsupportedOperationException when the engine cannot acquire without
	 * blocking
	 */
	default CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request, Duration wait) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot acquire a lock without blocking a "
				+ "thread; use io.github.redislock.engine.RedisLockEngine, or implement LockEngine.acquireAsync");
	}

	/**
	 * Return what this engine holds and waits for now, for health, metrics and the
	 * Actuator endpoint. Reading it costs nothing on the lock path.
	 * @return the diagnostics, the same object on every call
	 */
	LockDiagnostics diagnostics();

	/**
	 * Return how long the lock of the given name is still held for, by anyone anywhere:
	 * an exclusive or fair lock, or either side of a read/write lock. One round trip; the
	 * answer may be stale the moment it returns.
	 * @param key the lock name
	 * @return the lease left (of the longest of a read lock's holders), or {@code null}
	 * when the lock is free; {@link java.time.temporal.ChronoUnit#FOREVER}'s duration for
	 * a key without expiry, which only a hand-made key has
	 * @throws LockAccessException when Redis failed
	 */
	@Nullable Duration remainingLease(String key);

	/**
	 * Shut down gracefully, then {@linkplain #close() close}. From the call on, every
	 * acquisition fails with a {@link LockShutdownException}, and every thread waiting
	 * for a lock is woken with one, its place in a fair queue or its writer intent
	 * withdrawn. Threads that hold locks get up to the grace time to release them; locks
	 * still held then are released in Redis, so that other instances get them at once,
	 * and logged in one warning naming them; their holders find them lost
	 * ({@link LockHandle#isHeld()} is false, and {@link LockHandle#close()} throws
	 * {@link LockLostException}). Returns when done; a call made while another runs waits
	 * for it to end, and a later one returns at once.
	 * @param grace how long holders have to release their locks; {@link Duration#ZERO}
	 * releases them at once
	 */
	void shutdown(Duration grace);

	/**
	 * Shut down gracefully, as {@link #shutdown(Duration)}, with a grace of
	 * {@link #CLOSE_GRACE}, and close the engine's connections. Calling it again has no
	 * effect.
	 */
	@Override
	void close();

}
