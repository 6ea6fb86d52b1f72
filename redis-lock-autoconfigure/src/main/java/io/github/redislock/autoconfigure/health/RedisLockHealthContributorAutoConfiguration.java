package io.github.redislock.autoconfigure.health;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.CompositeHealthContributorConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import io.github.redislock.LockEngine;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.health.RedisLockHealthIndicator;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the
 * {@link RedisLockHealthIndicator} of each {@link LockEngine}, reported as
 * {@code redisLock}. {@code management.health.redislock.enabled=false} turns it off.
 *
 * @author redis-lock
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(LockEngine.class)
@ConditionalOnEnabledHealthIndicator("redislock")
public final class RedisLockHealthContributorAutoConfiguration
		extends CompositeHealthContributorConfiguration<RedisLockHealthIndicator, LockEngine> {

	RedisLockHealthContributorAutoConfiguration() {
		super((engine) -> new RedisLockHealthIndicator(engine.diagnostics()));
	}

	@Bean
	@ConditionalOnMissingBean(name = { "redisLockHealthIndicator", "redisLockHealthContributor" })
	HealthContributor redisLockHealthContributor(ConfigurableListableBeanFactory beanFactory) {
		return createContributor(beanFactory, LockEngine.class);
	}

}
