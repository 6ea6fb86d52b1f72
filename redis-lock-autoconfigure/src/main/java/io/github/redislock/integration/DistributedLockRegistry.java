package io.github.redislock.integration;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.util.Assert;

import io.github.redislock.FencedLock;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOperations;
import io.github.redislock.LockRequest;

/**
 * A Spring Integration {@link LockRegistry} of redis-lock's locks:
 * {@link #obtain(Object)} returns the {@link LockOperations#asLock(LockRequest)
 * java.util.concurrent Lock} of the key's {@link String#valueOf(Object) string form},
 * held across every JVM that uses the same Redis, renewed by the watchdog while held, and
 * reentrant per thread. Anything that takes a {@code LockRegistry} runs on it:
 * {@code LockRegistryLeaderInitiator}, the aggregator's and the idempotent receiver's
 * locks, and the registry's own {@code executeLocked} methods.
 *
 * <p>
 * As a {@link RenewableLockRegistry}, {@link #renewLock(Object, Duration)} sets the
 * calling thread's lease to the given time from now ({@link FencedLock#extend}), and
 * {@link #renewLock(Object)} to the request's fixed lease. Locks without a fixed lease
 * need no renewal, since the watchdog renews them: for those, {@code renewLock(key)} only
 * checks that the lock is still held. Ask for a fixed lease through the request factory.
 *
 * <p>
 * It keeps one {@code Lock} per key, so that a thread may lock through one
 * {@code obtain(key)} and unlock through another, up to a capacity after which the least
 * recently obtained ones are forgotten (as Spring Integration's own registries do): a
 * caller that keeps its {@code Lock} is not affected.
 *
 * @author redis-lock
 */
public class DistributedLockRegistry implements RenewableLockRegistry<FencedLock> {

	/** How many locks are kept by default. */
	public static final int DEFAULT_CAPACITY = 100_000;

	private final LockOperations operations;

	private final Function<String, LockRequest> requests;

	private final Map<String, FencedLock> locks;

	/**
	 * Create a registry of exclusive locks renewed by the watchdog, keeping up to
	 * {@value #DEFAULT_CAPACITY} of them.
	 * @param operations the locks, such as the auto-configured {@code LockTemplate}
	 */
	public DistributedLockRegistry(LockOperations operations) {
		this(operations, LockRequest::of, DEFAULT_CAPACITY);
	}

	/**
	 * Create a registry whose locks are made as the request factory says, such as with a
	 * fixed lease or fair ({@code key -> LockRequest.of(key).fair(true)}).
	 * @param operations the locks, such as the auto-configured {@code LockTemplate}
	 * @param requests the request of each lock name; its wait time is not read, since
	 * each {@code Lock} method says how long it waits, and it must be reentrant
	 * @param capacity how many locks to keep, at least 1; the default is
	 * {@value #DEFAULT_CAPACITY}
	 */
	public DistributedLockRegistry(LockOperations operations, Function<String, LockRequest> requests, int capacity) {
		Assert.notNull(operations, "LockOperations must not be null");
		Assert.notNull(requests, "The request factory must not be null");
		Assert.isTrue(capacity > 0, () -> "The capacity must be at least 1, not " + capacity);
		this.operations = operations;
		this.requests = requests;
		this.locks = new LinkedHashMap<>(16, 0.75f, true) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, FencedLock> eldest) {
				return size() > capacity;
			}

		};
	}

	/**
	 * Return the lock of the key's string form: the same object for the same key while it
	 * is kept.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @return a {@code Lock} with the JDK's contract, whose {@code fencingToken()} reads
	 * the calling thread's token
	 * @throws IllegalArgumentException when the key breaks redis-lock's rules for lock
	 * names (such as being blank)
	 */
	@Override
	public FencedLock obtain(Object lockKey) {
		String key = String.valueOf(lockKey);
		synchronized (this.locks) {
			FencedLock lock = this.locks.get(key);
			if (lock == null) {
				lock = this.operations.asLock(this.requests.apply(key));
				this.locks.put(key, lock);
			}
			return lock;
		}
	}

	/**
	 * Return the fencing token of the calling thread's hold of the key's lock, for the
	 * writes it protects, such as from {@code Candidate.onGranted} of a leader election,
	 * which runs on the thread that holds the lock. A shortcut for
	 * {@code obtain(lockKey).fencingToken()}.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @return the fencing token
	 * @throws IllegalMonitorStateException when the calling thread does not hold the lock
	 * through this registry
	 */
	public long fencingToken(Object lockKey) {
		return obtain(lockKey).fencingToken();
	}

	/**
	 * Renew the calling thread's hold of the key's lock: set its lease to the request's
	 * fixed lease from now, or, for a lock the watchdog renews, check that it is still
	 * held.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @throws IllegalStateException when the calling thread does not hold the lock
	 * through this registry, or the lock was lost
	 */
	@Override
	public void renewLock(Object lockKey) {
		String key = String.valueOf(lockKey);
		Duration lease = this.requests.apply(key).leaseTime();
		if (lease != null) {
			renewLock(lockKey, lease);
			return;
		}
		try {
			// Without a fixed lease, the watchdog renews it; extending by the engine's
			// own lease would only repeat its work.
			obtain(lockKey).fencingToken();
		}
		catch (IllegalMonitorStateException ex) {
			throw new IllegalStateException("Could not renew lock '" + key + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * Set the calling thread's lease of the key's lock to the given time from now,
	 * owner-checked in Redis; the fencing token stays the same. A lock the watchdog
	 * renews goes back to the watchdog's lease at its next renewal.
	 * @param lockKey the lock name, or an object whose {@code toString()} is
	 * @param ttl how long the lock is to stay held from now; positive
	 * @throws IllegalStateException when the calling thread does not hold the lock
	 * through this registry, or the lock was lost
	 * @throws IllegalArgumentException when the time is not positive
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		String key = String.valueOf(lockKey);
		try {
			obtain(lockKey).extend(ttl);
		}
		catch (IllegalMonitorStateException ex) {
			throw new IllegalStateException("Could not renew lock '" + key + "': " + ex.getMessage(), ex);
		}
		catch (LockLostException ex) {
			throw new IllegalStateException("Could not renew lock '" + key + "': it was lost (its lease ran out or "
					+ "Redis lost it), so the work done under it may have overlapped with another owner", ex);
		}
	}

	@Override
	public String toString() {
		return "DistributedLockRegistry[" + this.operations + "]";
	}

}
