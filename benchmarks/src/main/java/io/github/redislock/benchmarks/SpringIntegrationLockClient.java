package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * Spring Integration: a {@link RedisLockRegistry} with its defaults (60 second lease, 100
 * ms between tries in spin mode) on a Lettuce connection factory.
 */
final class SpringIntegrationLockClient implements LockClient {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockRegistry registry;

	SpringIntegrationLockClient(String host, int port, RedisLockType type) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.registry = new RedisLockRegistry(this.connectionFactory, "bench-si");
		this.registry.setRedisLockType(type);
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		DistributedLock lock = this.registry.obtain(key);
		try {
			boolean granted = (lease != null) ? lock.tryLock(WAIT_LIMIT, lease)
					: lock.tryLock(WAIT_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
			if (!granted) {
				throw new IllegalStateException("RedisLockRegistry did not grant '" + key + "' within " + WAIT_LIMIT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for '" + key + "'", ex);
		}
		return lock::unlock;
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.connectionFactory.destroy();
	}

}
