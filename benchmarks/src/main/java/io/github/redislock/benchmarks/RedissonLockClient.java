package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson: {@code RLock}, {@code RFairLock}, the two sides of {@code RReadWriteLock} and
 * permits of an {@code RPermitExpirableSemaphore} from a client with the default
 * single-server configuration (its own Netty connections, watchdog renewal of a 30 second
 * lease).
 */
final class RedissonLockClient implements LockClient {

	private final RedissonClient redisson;

	/** The semaphores whose permits were set, by name: each is set once. */
	private final Map<String, RPermitExpirableSemaphore> semaphores = new ConcurrentHashMap<>();

	RedissonLockClient(String host, int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + host + ":" + port);
		this.redisson = Redisson.create(config);
	}

	/** The client, shut down with this one. */
	RedissonClient redisson() {
		return this.redisson;
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		return lock(this.redisson.getLock(key), lease);
	}

	@Override
	public Release acquireFair(String key) {
		return lock(this.redisson.getFairLock(key), null);
	}

	@Override
	public Release acquireRead(String key) {
		return lock(this.redisson.getReadWriteLock(key).readLock(), null);
	}

	@Override
	public Release acquireWrite(String key) {
		return lock(this.redisson.getReadWriteLock(key).writeLock(), null);
	}

	/**
	 * A permit of an {@code RPermitExpirableSemaphore}, whose permits this client sets
	 * with {@code trySetPermits} the first time it meets the name (a no-op when another
	 * JVM set them first). The semaphore has no watchdog: each permit is taken with a
	 * lease of {@code lockWatchdogTimeout} (30 s), as long as the lease Redisson's locks
	 * hold between renewals, and released by its permit id.
	 */
	@Override
	public Release acquirePermit(String key, int limit) {
		RPermitExpirableSemaphore semaphore = this.semaphores.computeIfAbsent(key, (name) -> {
			RPermitExpirableSemaphore created = this.redisson.getPermitExpirableSemaphore(name);
			created.trySetPermits(limit);
			return created;
		});
		String permitId;
		try {
			permitId = semaphore.tryAcquire(WAIT_LIMIT.toMillis(), this.redisson.getConfig().getLockWatchdogTimeout(),
					TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a permit of '" + key + "'", ex);
		}
		if (permitId == null) {
			throw new IllegalStateException("Redisson did not grant a permit of '" + key + "' within " + WAIT_LIMIT);
		}
		return () -> semaphore.release(permitId);
	}

	/**
	 * {@code tryLock} without a lease time, as {@code lock()} does: the watchdog renews
	 * it every third of {@code lockWatchdogTimeout}.
	 */
	@Override
	public Renewed acquireRenewed(String key) {
		RLock lock = this.redisson.getLock(key);
		lock(lock, null);
		return new RenewedLock(lock);
	}

	@Override
	public Duration renewInterval() {
		return Duration.ofMillis(this.redisson.getConfig().getLockWatchdogTimeout() / 3);
	}

	private Release lock(RLock lock, @Nullable Duration lease) {
		try {
			long leaseMillis = (lease != null) ? lease.toMillis() : -1;
			if (!lock.tryLock(WAIT_LIMIT.toMillis(), leaseMillis, TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("Redisson did not grant '" + lock.getName() + "' within " + WAIT_LIMIT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for '" + lock.getName() + "'", ex);
		}
		return lock::unlock;
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

	/**
	 * A lock the watchdog renews. Redisson tells its holder nothing when a renewal finds
	 * the lock gone; {@code unlock()} throws {@link IllegalMonitorStateException} when
	 * the lock is no longer held by the thread.
	 */
	private record RenewedLock(RLock lock) implements Renewed {

		@Override
		public boolean lossNoticed() {
			return false;
		}

		@Override
		public boolean release() {
			try {
				this.lock.unlock();
				return true;
			}
			catch (IllegalMonitorStateException ex) {
				return false;
			}
		}

	}

}
