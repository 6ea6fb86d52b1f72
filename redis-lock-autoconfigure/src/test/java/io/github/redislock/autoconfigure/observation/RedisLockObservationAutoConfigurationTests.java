package io.github.redislock.autoconfigure.observation;

import java.time.Duration;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockTemplate;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.LockObserver;
import io.github.redislock.metrics.LockEngineMetrics;
import io.github.redislock.metrics.LockMetricsObserver;
import io.github.redislock.observation.DefaultLockAcquireObservationConvention;
import io.github.redislock.observation.LockAcquireContext;
import io.github.redislock.observation.LockAcquireObservationConvention;
import io.github.redislock.observation.ObservationLockObserver;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisLockObservationAutoConfiguration} and
 * {@link RedisLockMetricsAutoConfiguration}.
 */
@RedisTest
class RedisLockObservationAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	RedisLockObservationAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					RedisLockObservationAutoConfiguration.class, RedisLockMetricsAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void autoConfiguredTemplateIsObserved() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			assertThat(context).hasSingleBean(ObservationLockObserver.class).doesNotHaveBean(LockMetricsObserver.class);
			context.getBean(LockTemplate.class).run("order:42", () -> {
			});
			assertThat(context.getBean(TestObservationRegistry.class))
				.hasObservationWithNameEqualTo("redis.lock.acquire")
				.that()
				.hasLowCardinalityKeyValue("lock.name", "order:*")
				.doesNotHaveHighCardinalityKeyValueWithKey("lock.key");
		});
	}

	@Test
	void annotatedMethodIsTheLockName() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withBean(Orders.class)
			.run((context) -> {
				context.getBean(Orders.class).pay(42);
				assertThat(context.getBean(TestObservationRegistry.class))
					.forAllObservationsWithNameEqualTo("redis.lock.acquire",
							(observation) -> observation.hasLowCardinalityKeyValue("lock.name", "Orders.pay"))
					.forAllObservationsWithNameEqualTo("redis.lock.held",
							(observation) -> observation.hasLowCardinalityKeyValue("lock.name", "Orders.pay"));
			});
	}

	@Test
	void keyAndIdPatternFromProperties() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("redis-lock.observations.include-key=true",
					"redis-lock.observations.id-pattern=(?<=user:)[^:]+")
			.run((context) -> {
				context.getBean(LockTemplate.class).run("user:alice:cart", () -> {
				});
				assertThat(context.getBean(TestObservationRegistry.class))
					.hasObservationWithNameEqualTo("redis.lock.acquire")
					.that()
					.hasLowCardinalityKeyValue("lock.name", "user:*:cart")
					.hasHighCardinalityKeyValue("lock.key", "user:alice:cart");
			});
	}

	@Test
	void invalidIdPatternFailsNamingTheProperty() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("redis-lock.observations.id-pattern=order:(")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
						(ex) -> assertThat(ex.getName()).isEqualTo("redis-lock.observations.id-pattern")));
	}

	@Test
	void applicationsConventionIsUsed() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withBean(LockAcquireObservationConvention.class, TeamConvention::new)
			.run((context) -> {
				context.getBean(LockTemplate.class).run("order:42", () -> {
				});
				assertThat(context.getBean(TestObservationRegistry.class))
					.hasObservationWithNameEqualTo("redis.lock.acquire")
					.that()
					.hasLowCardinalityKeyValue("team", "billing");
			});
	}

	@Test
	void noObserverWithoutObservationRegistry() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LockTemplate.class).doesNotHaveBean(LockObserver.class);
			context.getBean(LockTemplate.class).run("order:42", () -> {
			});
		});
	}

	@Test
	void noObserverWithoutMicrometer() {
		this.runner.withClassLoader(new FilteredClassLoader("io.micrometer")).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class).doesNotHaveBean(LockObserver.class);
			context.getBean(LockTemplate.class).run("order:42", () -> {
			});
		});
	}

	@Test
	void observationsDisabledByProperty() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("redis-lock.observations.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ObservationLockObserver.class));
	}

	@Test
	void nothingWhenRedisLockIsDisabled() {
		this.runner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("redis-lock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockObserver.class)
				.doesNotHaveBean(LockEngineMetrics.class));
	}

	@Test
	void metersWithMeterRegistry() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("redis-lock.watchdog.lease=900ms", "redis-lock.watchdog.renew-interval=300ms")
			.run((context) -> {
				assertThat(context).hasSingleBean(LockMetricsObserver.class)
					.hasSingleBean(LockEngineMetrics.class)
					.hasSingleBean(ObservationLockObserver.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				context.getBean(LockEngineMetrics.class).bindTo(registry);
				LockTemplate template = context.getBean(LockTemplate.class);
				template.run("order:42", () -> {
					assertThat(registry.get("redis.lock.holds").tag("mode", "exclusive").gauge().value()).isOne();
					await().atMost(Duration.ofSeconds(5))
						.until(() -> registry.find("redis.lock.renewals")
							.tag("lock.name", "order:*")
							.counter() != null);
				});
				// Both observers saw the same acquisition.
				assertThat(context.getBean(TestObservationRegistry.class))
					.hasNumberOfObservationsWithNameEqualTo("redis.lock.held", 1);
			});
	}

	@Test
	void metersDisabledByProperty() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("redis-lock.observations.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockMetricsObserver.class)
				.doesNotHaveBean(LockEngineMetrics.class));
	}

	static class Orders {

		@DistributedLock(key = "order:#id")
		public void pay(long id) {
		}

	}

	static class TeamConvention extends DefaultLockAcquireObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(LockAcquireContext context) {
			return super.getLowCardinalityKeyValues(context).and("team", "billing");
		}

	}

}
