package io.github.redislock.autoconfigure.health;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.health.RedisLockHealthIndicator;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLockHealthContributorAutoConfiguration}.
 */
@RedisTest
class RedisLockHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	RedisLockHealthContributorAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					RedisLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void contributesIndicatorOfTheTemplate() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockHealthIndicator.class).hasBean("redisLockHealthContributor");
			assertThat(context.getBean(RedisLockHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void disabledByManagementProperty() {
		this.runner.withPropertyValues("management.health.redislock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisLockHealthIndicator.class));
	}

	@Test
	void absentWithoutTemplate() {
		this.runner.withPropertyValues("redis-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisLockHealthIndicator.class));
	}

	@Test
	void absentWithoutHealthSupport() {
		this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redisLockHealthContributor"));
	}

}
