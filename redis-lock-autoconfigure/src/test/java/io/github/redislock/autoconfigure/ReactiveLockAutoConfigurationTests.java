package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.ReactiveLockOperations;
import io.github.redislock.ReactiveLockTemplate;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ReactiveLockAutoConfiguration}.
 */
@RedisTest
class ReactiveLockAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	ReactiveLockAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					ReactiveLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void providesReactiveTemplateOnTheSameEngineAsTheBlockingOne() {
		this.runner.withBean(AcquireOutcomes.class).run((context) -> {
			assertThat(context).hasSingleBean(ReactiveLockTemplate.class).hasSingleBean(LockTemplate.class);
			ReactiveLockOperations reactive = context.getBean(ReactiveLockOperations.class);
			try (LockHandle held = context.getBean(LockTemplate.class).lock("invoice:7")) {
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(
						() -> reactive.execute(LockRequest.of("invoice:7").waitTime(Duration.ZERO), Mono.just(1))
							.block(Duration.ofSeconds(10)));
			}
			assertThat(reactive.executeMany("invoice:7", Flux.just(1, 2)).collectList().block(Duration.ofSeconds(10)))
				.containsExactly(1, 2);
			// The engine's observers see reactive acquisitions as they see blocking ones.
			assertThat(context.getBean(AcquireOutcomes.class).outcomes).containsExactly(
					LockObserver.AcquireOutcome.ACQUIRED, LockObserver.AcquireOutcome.TIMED_OUT,
					LockObserver.AcquireOutcome.ACQUIRED);
		});
	}

	@Test
	void backsOffWhenApplicationDefinesReactiveLockOperations() {
		this.runner.withUserConfiguration(ApplicationReactiveLocksConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ReactiveLockOperations.class);
			assertThat(context).getBean(ReactiveLockOperations.class).isSameAs(context.getBean("applicationLocks"));
			assertThat(context).hasSingleBean(LockTemplate.class);
		});
	}

	@Test
	void noReactiveTemplateWithoutReactor() {
		this.runner.withClassLoader(new FilteredClassLoader(Mono.class))
			.run((context) -> assertThat(context).hasSingleBean(LockTemplate.class)
				.doesNotHaveBean(ReactiveLockOperations.class));
	}

	@Test
	void noReactiveTemplateWhenDisabled() {
		this.runner.withPropertyValues("redis-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ReactiveLockOperations.class));
	}

	/** Records how each acquisition ended, in order. */
	static class AcquireOutcomes implements LockObserver {

		final List<AcquireOutcome> outcomes = new CopyOnWriteArrayList<>();

		@Override
		public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
				@Nullable Throwable failure) {
			this.outcomes.add(outcome);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationReactiveLocksConfiguration {

		@Bean
		ReactiveLockTemplate applicationLocks(LockEngine lockEngine) {
			return new ReactiveLockTemplate(lockEngine);
		}

	}

}
