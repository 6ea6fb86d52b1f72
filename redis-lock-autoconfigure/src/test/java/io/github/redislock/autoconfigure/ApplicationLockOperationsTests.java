package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

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
import io.github.redislock.LockRequest;
import io.github.redislock.LockShutdownException;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An application with every auto-configuration of redis-lock and Actuator's health,
 * endpoint and metrics support: the auto-configured engine starts its threads and
 * connects at its first lock, and nothing that reports on it or shuts it down starts it.
 * The engine's background work runs on a counting {@code redisLockTaskExecutor}, whose
 * count tells whether it started.
 */
@RedisTest
class ApplicationLockOperationsTests {

	private final RedisServer redis;

	private final AtomicInteger backgroundTasks = new AtomicInteger();

	private final ApplicationContextRunner runner;

	ApplicationLockOperationsTests(RedisServer redis) {
		this.redis = redis;
		Executor countingExecutor = (task) -> {
			this.backgroundTasks.incrementAndGet();
			new Thread(task).start();
		};
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					ReactiveLockAutoConfiguration.class, RedisLockHealthContributorAutoConfiguration.class,
					RedisLocksEndpointAutoConfiguration.class, RedisLockMetricsAutoConfiguration.class,
					RedisLockObservationAutoConfiguration.class, DistributedLockRegistryAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withBean(RedisLockAutoConfiguration.TASK_EXECUTOR_BEAN_NAME, Executor.class, () -> countingExecutor)
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"management.endpoints.web.exposure.include=redislocks");
	}

	@Test
	void engineStartsAtItsFirstLock() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisLockEngine.class).hasBean("lockTemplate");
			assertThat(context.getBean(RedisLockHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
			assertThat(context.getBean(RedisLocksEndpoint.class).locks().held()).isEmpty();
			assertThat(holdsGauge(context)).isZero();
			assertThat(this.backgroundTasks).hasValue(0);
			try (LockHandle handle = context.getBean(LockOperations.class).lock("invoice:1")) {
				assertThat(this.backgroundTasks).hasPositiveValue();
				assertThat(context.getBean(RedisLocksEndpoint.class).locks().held()).hasSize(1);
				assertThat(holdsGauge(context)).isOne();
			}
		});
	}

	@Test
	void engineNeverStartsWhenTheApplicationsLockOperationsDoesNotUseIt() {
		this.runner.withUserConfiguration(OwnEngineLocksConfiguration.class, LockedConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisLockEngine.class);
				assertThat(context).getBean(LockOperations.class).isSameAs(context.getBean("applicationLocks"));
				assertThat(context).getBean(DistributedLockRegistry.class).isNotNull();
				// @DistributedLock locks through the application's operations.
				context.getBean(Locked.class).run(() -> assertThat(keys("own:*")).contains("own:{locked}"));
				// Reporting on the engine and shutting it down does not start it.
				assertThat(context.getBean(RedisLockHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
				assertThat(context.getBean(RedisLocksEndpoint.class).locks().held()).isEmpty();
				assertThat(holdsGauge(context)).isZero();
				context.getBean(LockEngineShutdownLifecycle.class).stop();
				assertThat(this.backgroundTasks).hasValue(0);
				assertThatExceptionOfType(LockShutdownException.class).isThrownBy(
						() -> context.getBean(RedisLockEngine.class).acquire(LockRequest.of("late"), Duration.ZERO));
				assertThat(this.backgroundTasks).hasValue(0);
			});
	}

	@Test
	void engineStartsWhenTheApplicationsLockOperationsBuildsOnIt() {
		this.runner.withUserConfiguration(LocksOnTheEngineConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean("lockTemplate");
			try (LockHandle handle = context.getBean(LockOperations.class).lock("invoice:1")) {
				assertThat(context.getBean(RedisLocksEndpoint.class).locks().held()).hasSize(1);
				assertThat(holdsGauge(context)).isOne();
			}
			assertThat(this.backgroundTasks).hasPositiveValue();
			assertThat(context.getBean(ReactiveLockOperations.class)).isNotNull();
		});
	}

	/**
	 * The engine's gauge of held exclusive locks, bound as a meter registry would bind
	 * it.
	 */
	private static double holdsGauge(AssertableApplicationContext context) {
		MeterRegistry registry = new SimpleMeterRegistry();
		context.getBean(LockEngineMetrics.class).bindTo(registry);
		return registry.get("redis.lock.holds").tag("mode", "exclusive").gauge().value();
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
