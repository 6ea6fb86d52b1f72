package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RSemaphore}, from a client with the default single-server
 * configuration: permits that are counted, not owned, with no lease, so that a permit
 * whose holder died is never given back. It has permits only; it takes no lock.
 */
final class RedissonSemaphoreClient implements LockClient {

	private final RedissonClient redisson;

	/** The semaphores whose permits were set, by name: each is set once. */
	private final Map<String, RSemaphore> semaphores = new ConcurrentHashMap<>();

	RedissonSemaphoreClient(String host, int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + host + ":" + port);
		this.redisson = Redisson.create(config);
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		throw new UnsupportedOperationException("Redisson RSemaphore has permits only, no exclusive lock");
	}

	/**
	 * A permit of the semaphore, whose permits this client sets with
	 * {@code trySetPermits} the first time it meets the name (a no-op when another JVM
	 * set them first).
	 */
	@Override
	public Release acquirePermit(String key, int limit) {
		RSemaphore semaphore = this.semaphores.computeIfAbsent(key, (name) -> {
			RSemaphore created = this.redisson.getSemaphore(name);
			created.trySetPermits(limit);
			return created;
		});
		try {
			if (!semaphore.tryAcquire(WAIT_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException(
						"Redisson did not grant a permit of '" + key + "' within " + WAIT_LIMIT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a permit of '" + key + "'", ex);
		}
		return semaphore::release;
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
