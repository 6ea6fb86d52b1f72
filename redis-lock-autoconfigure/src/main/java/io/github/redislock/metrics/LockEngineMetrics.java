package io.github.redislock.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.redislock.engine.RedisLockEngine;

/**
 * Gauges of a {@link RedisLockEngine}, read when the registry is scraped:
 * <ul>
 * <li>{@code redis.lock.holds}: locks held by this instance now;</li>
 * <li>{@code redis.lock.waiters}: threads of this instance waiting for a lock now.</li>
 * </ul>
 * Nothing is counted on the lock path: each reading walks the engine's held locks or
 * subscribed channels.
 *
 * @author redis-lock
 */
public class LockEngineMetrics implements MeterBinder {

	private final RedisLockEngine engine;

	/**
	 * Create gauges of the given engine.
	 * @param engine the engine, such as {@code lockTemplate.engine()}
	 */
	public LockEngineMetrics(RedisLockEngine engine) {
		this.engine = engine;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("redis.lock.holds", this.engine, RedisLockEngine::heldCount)
			.description("Locks held by this instance now")
			.register(registry);
		Gauge.builder("redis.lock.waiters", this.engine, RedisLockEngine::waiterCount)
			.description("Threads of this instance waiting for a lock now")
			.register(registry);
	}

}
