package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockShutdownException;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LockEngineShutdownLifecycle}: closing the application context shuts
 * the engine down before the Redis connection factory stops.
 */
@RedisTest
class LockEngineShutdownLifecycleTests {

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	LockEngineShutdownLifecycleTests(RedisServer redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.lifecycle.timeout-per-shutdown-phase=1s");
	}

	@Test
	void closingTheContextReleasesLocksStillHeldAfterThePhasesTimeInRedis() {
		this.runner.run((context) -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			LockHandle handle = template.lock("invoice:1");
			assertThat(pttl("redis-lock:{invoice:1}")).isPositive();
			long closing = System.nanoTime();
			context.close();
			assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofSeconds(2));
			// Released, not left to expire after the 30 s watchdog lease.
			assertThat(holder("redis-lock:{invoice:1}")).isNull();
			assertThat(handle.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
			assertThatExceptionOfType(LockShutdownException.class).isThrownBy(() -> template.lock("invoice:2"));
		});
	}

	@Test
	void holderThatFinishesWithinThePhaseReleasesNormally() {
		this.runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=20s").run((context) -> {
			assertThat(context.getBean(LockEngineShutdownLifecycle.class).grace()).isEqualTo(Duration.ofSeconds(18));
			LockTemplate template = context.getBean(LockTemplate.class);
			LockHandle handle = template.lock("invoice:1");
			CompletableFuture<Void> closed = CompletableFuture.runAsync(context::close);
			await().atMost(Duration.ofSeconds(2))
				.untilAsserted(() -> assertThatExceptionOfType(LockShutdownException.class).isThrownBy(
						() -> template.tryLock(LockRequest.of("invoice:1").reentrant(false).waitTime(Duration.ZERO))));
			assertThat(handle.isHeld()).isTrue();
			handle.close();
			closed.get(2, TimeUnit.SECONDS);
			assertThat(holder("redis-lock:{invoice:1}")).isNull();
		});
	}

	@Test
	void stopsBeforeTheConnectionFactory() {
		this.runner.run((context) -> {
			LockEngineShutdownLifecycle lifecycle = context.getBean(LockEngineShutdownLifecycle.class);
			assertThat(lifecycle.getPhase()).isGreaterThan(context.getBean(LettuceConnectionFactory.class).getPhase());
			assertThat(lifecycle.grace()).isEqualTo(Duration.ofMillis(750));
		});
	}

	@Test
	void graceIsThePhasesTimeLessAMarginForTheRelease() {
		assertThat(LockEngineShutdownLifecycle.grace(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(28));
		assertThat(LockEngineShutdownLifecycle.grace(Duration.ofSeconds(4))).isEqualTo(Duration.ofSeconds(3));
		assertThat(LockEngineShutdownLifecycle.grace(Duration.ZERO)).isEqualTo(Duration.ZERO);
	}

	private long pttl(String key) {
		try (RedisCli cli = this.redis.cli()) {
			return cli.pttl(key);
		}
	}

	private @Nullable String holder(String key) {
		try (RedisCli cli = this.redis.cli()) {
			return LockKeyValues.holder(cli, key);
		}
	}

}
