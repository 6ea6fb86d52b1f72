package io.github.redislock.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.redislock.LockDiagnostics;

/**
 * Gauges of a lock engine's {@link LockDiagnostics}, read when the registry is scraped:
 * <ul>
 * <li>{@code redis.lock.holds}: locks held by this instance now;</li>
 * <li>{@code redis.lock.waiters}: threads of this instance waiting for a lock now;</li>
 * <li>{@code redis.lock.releases.retried}: releases this instance tries again in the
 * background because Redis failed; above zero while Redis is unreachable.</li>
 * </ul>
 * Nothing is counted on the lock path: each reading walks the engine's held locks or
 * subscribed channels.
 *
 * @author redis-lock
 */
public class LockEngineMetrics implements MeterBinder {

	private final LockDiagnostics diagnostics;

	/**
	 * Create gauges of an engine.
	 * @param diagnostics the engine's diagnostics, such as
	 * {@code lockEngine.diagnostics()}
	 */
	public LockEngineMetrics(LockDiagnostics diagnostics) {
		this.diagnostics = diagnostics;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("redis.lock.holds", this.diagnostics, LockDiagnostics::heldCount)
			.description("Locks held by this instance now")
			.register(registry);
		Gauge.builder("redis.lock.waiters", this.diagnostics, LockDiagnostics::waiterCount)
			.description("Threads of this instance waiting for a lock now")
			.register(registry);
		Gauge.builder("redis.lock.releases.retried", this.diagnostics, LockDiagnostics::retriedReleaseCount)
			.description("Releases this instance tries again in the background because Redis failed")
			.register(registry);
	}

}
