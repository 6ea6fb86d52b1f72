package io.github.redislock.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver;
import io.github.redislock.observation.LockNames;

/**
 * A {@link LockObserver} that counts what the watchdog finds, per {@linkplain LockNames
 * lock name}:
 * <ul>
 * <li>{@code redis.lock.renewals}: lease renewals, tagged {@code outcome=renewed}, or
 * {@code outcome=failed} when Redis could not be reached (the renewal is tried again
 * until the lease runs out);</li>
 * <li>{@code redis.lock.losses}: locks found lost while held, once per grant.</li>
 * </ul>
 * Acquisitions and hold times are recorded by
 * {@link io.github.redislock.observation.ObservationLockObserver}; locks held and threads
 * waiting now by {@link LockEngineMetrics}.
 *
 * @author redis-lock
 */
public class LockMetricsObserver implements LockObserver {

	private final MeterRegistry registry;

	private final LockNames names;

	/**
	 * Create an observer that counts into the given registry.
	 * @param registry the meter registry
	 * @param names how to name locks in tags
	 */
	public LockMetricsObserver(MeterRegistry registry, LockNames names) {
		this.registry = registry;
		this.names = names;
	}

	/**
	 * Return the lock name as context of the hold, for the counters' tags.
	 */
	@Override
	public Object held(String key, @Nullable String name, long fencingToken, @Nullable Object acquireContext) {
		return this.names.nameOf(key, name);
	}

	@Override
	public void renewed(String key, @Nullable Object holdContext) {
		renewals(key, holdContext, "renewed").increment();
	}

	@Override
	public void renewalFailed(String key, @Nullable Object holdContext, Throwable failure) {
		renewals(key, holdContext, "failed").increment();
	}

	@Override
	public void lost(String key, long fencingToken, @Nullable Object holdContext) {
		Counter.builder("redis.lock.losses")
			.description("Locks found lost while held: expired or taken over before their release")
			.tag("lock.name", lockName(key, holdContext))
			.register(this.registry)
			.increment();
	}

	private Counter renewals(String key, @Nullable Object holdContext, String outcome) {
		return Counter.builder("redis.lock.renewals")
			.description("Lease renewals by the watchdog")
			.tag("lock.name", lockName(key, holdContext))
			.tag("outcome", outcome)
			.register(this.registry);
	}

	private String lockName(String key, @Nullable Object holdContext) {
		return (holdContext instanceof String name) ? name : this.names.nameOf(key, null);
	}

}
