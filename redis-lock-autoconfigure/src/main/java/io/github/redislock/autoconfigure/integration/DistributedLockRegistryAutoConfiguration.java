package io.github.redislock.autoconfigure.integration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.redislock.LockOperations;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.integration.DistributedLockRegistry;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of a Spring Integration
 * {@link LockRegistry} of redis-lock's locks, a {@link DistributedLockRegistry} on the
 * application's {@link LockOperations}, when {@code spring-integration-core} is on the
 * classpath. Any {@code LockRegistry} bean of the application replaces it, and
 * {@code redis-lock.integration.lock-registry.enabled=false} turns it off.
 *
 * @author redis-lock
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-lock.integration.lock-registry.enabled", matchIfMissing = true)
public final class DistributedLockRegistryAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	@ConditionalOnSingleCandidate(LockOperations.class)
	DistributedLockRegistry distributedLockRegistry(LockOperations lockOperations) {
		return new DistributedLockRegistry(lockOperations);
	}

}
