package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.integration.DistributedLockRegistry;

/**
 * redis-lock behind Spring Integration's {@code LockRegistry}: a
 * {@link DistributedLockRegistry} on a {@link LockTemplate} with default options, used as
 * the Spring Integration clients use theirs ({@code obtain(key).tryLock(…)}), so that the
 * two registries compare through the same interface. A fixed lease, which a registry lock
 * cannot take per call, goes through {@code asLock} of a request with that lease, the
 * same {@code Lock} the registry hands out.
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
		Lock lock = (lease != null) ? this.template.asLock(LockRequest.of(key).leaseTime(lease))
				: this.registry.obtain(key);
		try {
			if (!lock.tryLock(WAIT_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
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
