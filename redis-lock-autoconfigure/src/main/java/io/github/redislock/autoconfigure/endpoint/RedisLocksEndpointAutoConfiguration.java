package io.github.redislock.autoconfigure.endpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

import io.github.redislock.LockEngine;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the {@link RedisLocksEndpoint}
 * ({@code /actuator/redislocks}), when it is available: exposed with
 * {@code management.endpoints.web.exposure.include=redislocks}.
 *
 * @author redis-lock
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnAvailableEndpoint(RedisLocksEndpoint.class)
public final class RedisLocksEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnSingleCandidate(LockEngine.class)
	RedisLocksEndpoint redisLocksEndpoint(LockEngine lockEngine) {
		return new RedisLocksEndpoint(lockEngine.diagnostics());
	}

}
