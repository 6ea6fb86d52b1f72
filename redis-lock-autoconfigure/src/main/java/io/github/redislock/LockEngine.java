package io.github.redislock;

import java.time.Duration;

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
	 * Return what this engine holds and waits for now, for health, metrics and the
	 * Actuator endpoint. Reading it costs nothing on the lock path.
	 * @return the diagnostics, the same object on every call
	 */
	LockDiagnostics diagnostics();

	/**
	 * Stop renewing and waiting, and close the engine's connections. Locks still held
	 * expire at the end of their lease; waiters give up at their next wake-up. Calling it
	 * again has no effect.
	 */
	@Override
	void close();

}
