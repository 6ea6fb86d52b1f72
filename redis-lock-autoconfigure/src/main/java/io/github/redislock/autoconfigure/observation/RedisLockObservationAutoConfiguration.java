package io.github.redislock.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.observation.LockAcquireObservationConvention;
import io.github.redislock.observation.LockHoldObservationConvention;
import io.github.redislock.observation.ObservationLockObserver;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the
 * {@link ObservationLockObserver}: lock acquisitions and holds recorded as observations
 * of the application's {@link ObservationRegistry}, which the auto-configured
 * {@code RedisLockEngine} reports to. {@code redis-lock.observations.enabled=false} turns
 * it off.
 *
 * @author redis-lock
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "redis-lock.observations.enabled", matchIfMissing = true)
public final class RedisLockObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ObservationLockObserver observationLockObserver(ObservationRegistry observationRegistry,
			RedisLockProperties properties, ObjectProvider<LockAcquireObservationConvention> acquireConvention,
			ObjectProvider<LockHoldObservationConvention> holdConvention) {
		ObservationLockObserver observer = new ObservationLockObserver(observationRegistry,
				LockNamesFactory.lockNames(properties), properties.getObservations().isIncludeKey());
		observer.setAcquireConvention(acquireConvention.getIfUnique());
		observer.setHoldConvention(holdConvention.getIfUnique());
		return observer;
	}

}
