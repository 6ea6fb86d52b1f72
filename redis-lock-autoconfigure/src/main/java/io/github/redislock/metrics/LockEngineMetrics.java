package io.github.redislock.metrics;

import java.util.Locale;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockMode;

/**
 * Gauges of a lock engine's {@link LockDiagnostics}, read when the registry is scraped:
 * <ul>
 * <li>{@code redis.lock.holds}: locks held by this instance now, one gauge per
 * {@link LockMode}, tagged {@code mode} with its name in lower case ({@code exclusive},
 * {@code read}, {@code write}, {@code permit}: a permit counts once per permit held);
 * their sum is every hold;</li>
 * <li>{@code redis.lock.waiters}: threads of this instance waiting for a lock now, one
 * gauge per mode, tagged {@code mode} as the holds are;</li>
 * <li>{@code redis.lock.releases.retried}: releases this instance tries again in the
 * background because Redis failed; above zero while Redis is unreachable.</li>
 * </ul>
 * Nothing is counted on the lock path: each reading walks the engine's held locks or
 * subscribed channels. No lock name is a tag: per name, the {@code redislocks} endpoint
 * tells.
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
		for (LockMode mode : LockMode.values()) {
			String tag = mode.name().toLowerCase(Locale.ROOT);
			Gauge.builder("redis.lock.holds", this.diagnostics, (diagnostics) -> diagnostics.heldCount(mode))
				.description("Locks held by this instance now, by mode; a permit counts once per permit held")
				.tag("mode", tag)
				.register(registry);
			Gauge.builder("redis.lock.waiters", this.diagnostics, (diagnostics) -> diagnostics.waiterCount(mode))
				.description("Threads of this instance waiting for a lock now, by mode")
				.tag("mode", tag)
				.register(registry);
		}
		Gauge.builder("redis.lock.releases.retried", this.diagnostics, LockDiagnostics::retriedReleaseCount)
			.description("Releases this instance tries again in the background because Redis failed")
			.register(registry);
	}

}
