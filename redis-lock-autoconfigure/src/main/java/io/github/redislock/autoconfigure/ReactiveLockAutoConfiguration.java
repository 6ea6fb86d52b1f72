package io.github.redislock.autoconfigure;

import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

import io.github.redislock.LockEngine;
import io.github.redislock.LockTemplate;
import io.github.redislock.ReactiveLockOperations;
import io.github.redislock.ReactiveLockTemplate;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of a {@link ReactiveLockTemplate},
 * beside the {@link LockTemplate}, when Reactor is on the classpath: on the same
 * {@link LockEngine}, so that the same observers and metrics see its locks, and blocking
 * and reactive callers of one key exclude each other. An application's own
 * {@link ReactiveLockOperations} bean replaces it; {@code redis-lock.enabled=false} turns
 * it off with the rest.
 *
 * @author redis-lock
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(Mono.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
public final class ReactiveLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ReactiveLockOperations.class)
	@ConditionalOnSingleCandidate(LockEngine.class)
	ReactiveLockTemplate reactiveLockTemplate(LockEngine lockEngine) {
		return new ReactiveLockTemplate(lockEngine);
	}

}
