package io.github.redislock.autoconfigure.endpoint;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redislock.actuate.endpoint.RedisLocksEndpoint;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisLocksEndpointAutoConfiguration}.
 */
@RedisTest
class RedisLocksEndpointAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	RedisLocksEndpointAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					RedisLocksEndpointAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void endpointWhenExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redislocks")
			.run((context) -> assertThat(context).hasSingleBean(RedisLocksEndpoint.class));
	}

	@Test
	void noEndpointWhenNotExposed() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(RedisLocksEndpoint.class));
	}

	@Test
	void noEndpointWhenAccessIsNone() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=redislocks",
					"management.endpoint.redislocks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisLocksEndpoint.class));
	}

	@Test
	void noEndpointWithoutTemplate() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=redislocks", "redis-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisLocksEndpoint.class));
	}

}
