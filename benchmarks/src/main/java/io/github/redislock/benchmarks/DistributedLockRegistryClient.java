package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.integration.DistributedLockRegistry;
import io.github.redislock.integration.RegistryLock;

/**
 * redis-lock behind Spring Integration's {@code LockRegistry}: a
 * {@link DistributedLockRegistry} on a {@link LockTemplate} with default options, used as
 * the Spring Integration clients use theirs ({@code obtain(key).tryLock(…)}), so that the
 * two registries compare through the same interface, a fixed lease included
 * ({@code DistributedLock.tryLock(waitTime, ttl)}).
 */
final class DistributedLockRegistryClient implements LockClient {

	private final LettuceConnectionFactory connectionFactory;

	private final LockTemplate template;

	private final DistributedLockRegistry registry;

	DistributedLockRegistryClient(String host, int port) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.template = new LockTemplate(new RedisLockEngine(this.connectionFactory, LockOptions.defaults()));
		this.registry = new DistributedLockRegistry(this.template);
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		RegistryLock lock = this.registry.obtain(key);
		try {
			boolean granted = (lease != null) ? lock.tryLock(WAIT_LIMIT, lease)
					: lock.tryLock(WAIT_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
			if (!granted) {
				throw new IllegalStateException(
						"DistributedLockRegistry did not grant '" + key + "' within " + WAIT_LIMIT);
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
		this.template.close();
		this.connectionFactory.destroy();
	}

}
