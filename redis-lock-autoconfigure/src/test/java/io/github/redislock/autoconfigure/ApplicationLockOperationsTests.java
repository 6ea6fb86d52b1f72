package io.github.redislock.autoconfigure;

import java.util.Set;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockOperations;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.ReactiveLockOperations;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint;
import io.github.redislock.autoconfigure.endpoint.RedisLocksEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.health.RedisLockHealthContributorAutoConfiguration;
import io.github.redislock.autoconfigure.integration.DistributedLockRegistryAutoConfiguration;
import io.github.redislock.autoconfigure.observation.RedisLockMetricsAutoConfiguration;
import io.github.redislock.autoconfigure.observation.RedisLockObservationAutoConfiguration;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.health.RedisLockHealthIndicator;
import io.github.redislock.integration.DistributedLockRegistry;
import io.github.redislock.metrics.LockEngineMetrics;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's own {@link LockOperations} bean, with every auto-configuration of
 * redis-lock and Actuator's health, endpoint and metrics support present: the
 * auto-configured engine, with its connections and threads, is created only when
 * something uses it, and nothing that reports on it creates it.
 */
@RedisTest
class ApplicationLockOperationsTests {

	private static final String ENGINE = "redisLockEngine";

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	ApplicationLockOperationsTests(RedisServer redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					ReactiveLockAutoConfiguration.class, RedisLockHealthContributorAutoConfiguration.class,
					RedisLocksEndpointAutoConfiguration.class, RedisLockMetricsAutoConfiguration.class,
					RedisLockObservationAutoConfiguration.class, DistributedLockRegistryAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"management.endpoints.web.exposure.include=redislocks");
	}

	@Test
	void engineIsCreatedAtStartWhenTheAutoConfiguredTemplateUsesIt() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean(ENGINE).hasBean("lockTemplate");
			assertThat(isCreated(context)).isTrue();
			assertThat(context.getBean(RedisLockHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void engineIsNeverCreatedWhenTheApplicationsLockOperationsDoesNotUseIt() {
		this.runner.withUserConfiguration(OwnEngineLocksConfiguration.class, LockedConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).getBean(LockOperations.class).isSameAs(context.getBean("applicationLocks"));
				assertThat(context).getBean(DistributedLockRegistry.class).isNotNull();
				assertThat(isCreated(context)).isFalse();
				// @DistributedLock locks through the application's operations.
				context.getBean(Locked.class).run(() -> assertThat(keys("own:*")).contains("own:{locked}"));
				// Reporting on the engine does not create it.
				assertThat(context.getBean(RedisLockHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
				assertThat(context.getBean(RedisLocksEndpoint.class).locks().held()).isEmpty();
				assertThat(holdsGauge(context)).isZero();
				context.getBean(LockEngineShutdownLifecycle.class).stop();
				assertThat(isCreated(context)).isFalse();
			});
	}

	@Test
	void engineIsCreatedWhenTheApplicationsLockOperationsBuildsOnIt() {
		this.runner.withUserConfiguration(LocksOnTheEngineConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean("lockTemplate");
			assertThat(isCreated(context)).isTrue();
			try (LockHandle handle = context.getBean(LockOperations.class).lock("invoice:1")) {
				assertThat(context.getBean(RedisLocksEndpoint.class).locks().held()).hasSize(1);
				assertThat(holdsGauge(context)).isOne();
			}
			assertThat(context.getBean(ReactiveLockOperations.class)).isNotNull();
		});
	}

	/** The engine's gauge of held locks, bound as a meter registry would bind it. */
	private static double holdsGauge(AssertableApplicationContext context) {
		MeterRegistry registry = new SimpleMeterRegistry();
		context.getBean(LockEngineMetrics.class).bindTo(registry);
		return registry.get("redis.lock.holds").gauge().value();
	}

	private static boolean isCreated(AssertableApplicationContext context) {
		return context.getBeanFactory().containsSingleton(ENGINE);
	}

	private Set<String> keys(String pattern) {
		try (RedisCli cli = this.redis.cli()) {
			return Set.copyOf(cli.keys(pattern));
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnEngineLocksConfiguration {

		/** Operations on an engine of the application's own, not a bean. */
		@Bean(destroyMethod = "close")
		LockTemplate applicationLocks(RedisConnectionFactory connectionFactory) {
			return new LockTemplate(
					new RedisLockEngine(connectionFactory, LockOptions.defaults().withKeyPrefix("own:")));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LocksOnTheEngineConfiguration {

		@Bean
		LockTemplate applicationLocks(LockEngine lockEngine) {
			return new LockTemplate(lockEngine);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LockedConfiguration {

		@Bean
		Locked locked() {
			return new Locked();
		}

	}

	static class Locked {

		@DistributedLock("locked")
		public void run(Runnable action) {
			action.run();
		}

	}

}
