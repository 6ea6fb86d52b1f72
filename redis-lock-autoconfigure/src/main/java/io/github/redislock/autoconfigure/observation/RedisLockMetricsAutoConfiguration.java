package io.github.redislock.autoconfigure.observation;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

import io.github.redislock.LockEngine;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.metrics.LockEngineMetrics;
import io.github.redislock.metrics.LockMetricsObserver;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of redis-lock's meters in the
 * application's {@link MeterRegistry}: gauges of the {@link LockEngine}'s held locks and
 * waiting threads ({@link LockEngineMetrics}), counters of renewals and losses
 * ({@link LockMetricsObserver}). {@code redis-lock.observations.metrics.enabled=false}
 * turns it off.
 *
 * @author redis-lock
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "redis-lock.observations.metrics.enabled", matchIfMissing = true)
public final class RedisLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockMetricsObserver lockMetricsObserver(MeterRegistry meterRegistry, RedisLockProperties properties) {
		return new LockMetricsObserver(meterRegistry, LockNamesFactory.lockNames(properties));
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(LockEngine.class)
	LockEngineMetrics lockEngineMetrics(LockEngine lockEngine) {
		return new LockEngineMetrics(lockEngine.diagnostics());
	}

}
