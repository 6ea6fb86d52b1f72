package io.github.redislock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.scheduling.TaskScheduler;

import io.github.redislock.FencedLock;
import io.github.redislock.LockAccessException;
import io.github.redislock.LockOperations;
import io.github.redislock.LockRequest;

/**
 * A lock of {@link DistributedLockRegistry#obtain(Object)}: Spring Integration's
 * {@link DistributedLock}, as the locks of its {@code RedisLockRegistry} and
 * {@code JdbcLockRegistry} are, and a {@link FencedLock}, whose {@code fencingToken()}
 * reads the calling thread's token. It behaves as the {@code Lock} of
 * {@link LockOperations#asLock(LockRequest)} (held across every JVM that uses the same
 * Redis, reentrant per thread, {@code lock()} not interruptible, no {@code Condition}),
 * except in what a Spring Integration registry's lock promises:
 * <ul>
 * <li>{@link #lock(Duration)} and {@link #tryLock(Duration, Duration)} hold the lock with
 * a fixed lease of the given time to live, which the registry's
 * {@linkplain DistributedLockRegistry#setRenewalTaskScheduler(TaskScheduler) renewal
 * scheduler}, when one is set, renews while the lock is held; the other methods lock with
 * the lease of the registry's request factory (by default, renewed by the watchdog);</li>
 * <li>{@link #unlock()} of a lock lost while held throws
 * {@link ConcurrentModificationException}, once it has given up the hold.</li>
 * </ul>
 * The holds belong to the registry and the key, not to this object: a thread may lock
 * through one {@code obtain(key)} and unlock through another.
 *
 * @author redis-lock
 */
public interface RegistryLock extends FencedLock, DistributedLock {

	/**
	 * Acquire the lock with a fixed lease, waiting without bound, as {@link #lock()}: not
	 * interruptible (an interrupt is remembered and set again once the lock is held). A
	 * reentrant hold shares the lease of the thread's outer hold.
	 * @param ttl the lease of this hold, at least 1 ms; renewed while held only when the
	 * registry has a renewal scheduler
	 * @throws IllegalArgumentException when the ttl is null or under 1 ms
	 * @throws LockAccessException when Redis failed
	 */
	@Override
	void lock(Duration ttl);

	/**
	 * Acquire the lock with a fixed lease, waiting up to the given time, as
	 * {@link #tryLock(long, TimeUnit)}: interruptible, and a negative wait is no wait. A
	 * reentrant hold shares the lease of the thread's outer hold.
	 * @param waitTime how long to wait for the lock
	 * @param ttl the lease of this hold, at least 1 ms; renewed while held only when the
	 * registry has a renewal scheduler
	 * @return whether the lock is held
	 * @throws InterruptedException when the thread was interrupted before or while
	 * waiting (its interrupt status is then cleared); nothing is held
	 * @throws IllegalArgumentException when a time is null or the ttl under 1 ms
	 * @throws LockAccessException when Redis failed
	 */
	@Override
	boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException;

	/**
	 * Release the calling thread's most recent hold of the lock; the lock is released in
	 * Redis with the thread's last hold. The hold is given up whatever happens: when the
	 * lock was lost while held (its lease ran out, or Redis lost it, and another owner
	 * may hold it now), this throws {@link ConcurrentModificationException} after giving
	 * it up, leaving the new owner's lock untouched, as Spring Integration's registries
	 * do: the work done under the lock may have overlapped with another owner's.
	 * @throws ConcurrentModificationException when the lock was lost while held; its
	 * cause is the {@link io.github.redislock.LockLostException}
	 * @throws IllegalMonitorStateException when the calling thread does not hold the lock
	 * through this registry
	 * @throws LockAccessException when Redis failed; the hold is given up all the same,
	 * and Redis frees the lock by the end of its lease at the latest
	 */
	@Override
	void unlock();

}
