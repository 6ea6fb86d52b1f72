package io.github.redislock.annotation;

import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock;
import io.github.redislock.LockMode;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that invalid {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit}
 * declarations stop the application when their bean is created, naming the annotation,
 * class, method and fix: no limit, a limit below 1, a {@code limitString} that is not a
 * whole number, both annotations on one method, and {@code @DistributedLock(mode =
 * PERMIT)}.
 */
@RedisTest
class DistributedConcurrencyLimitStartupFailureTests {

	private final ApplicationContextRunner runner;

	DistributedConcurrencyLimitStartupFailureTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
					DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"partner.max-calls=4", "partner.name=acme", "partner.none=0");
	}

	@Test
	void validDeclarationsStart() {
		this.runner.withBean(Valid.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void noLimit() {
		this.runner.withBean(NoLimit.class)
			.run((context) -> assertFailure(context).hasMessageContaining(NoLimit.class.getName() + ".call(long)")
				.hasMessageContaining("it gives no limit")
				.hasMessageContaining("as limit = 3 (or value), or as limitString"));
	}

	@Test
	void limitBelowOne() {
		this.runner.withBean(ZeroLimit.class)
			.run((context) -> assertFailure(context).hasMessageContaining(ZeroLimit.class.getName() + ".call()")
				.hasMessageContaining("limit = 0 must be at least 1, but is 0"));
	}

	@Test
	void limitStringResolvingBelowOne() {
		this.runner.withBean(ZeroLimitString.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("limitString = \"${partner.none}\" (0) must be at least 1, but is 0"));
	}

	@Test
	void limitStringResolvingToSomethingElseThanANumber() {
		this.runner.withBean(NotANumber.class)
			.run((context) -> assertFailure(context).hasMessageContaining(NotANumber.class.getName() + ".call()")
				.hasMessageContaining("limitString = \"${partner.name}\" resolves to 'acme', not a whole number")
				.hasMessageContaining("Write a whole number of 1 or more, or a ${...} placeholder"));
	}

	@Test
	void limitStringNamingAMissingProperty() {
		this.runner.withBean(MissingProperty.class)
			.run((context) -> assertFailure(context).hasMessageContaining(MissingProperty.class.getName() + ".call()")
				.hasMessageContaining("limitString = \"${partner.missing}\" could not be resolved"));
	}

	@Test
	void bothAnnotations() {
		this.runner.withBean(BothAnnotations.class)
			.run((context) -> assertFailure(context).hasMessageContaining(BothAnnotations.class.getName() + ".call()")
				.hasMessageContaining("carries both @DistributedLock and @DistributedConcurrencyLimit")
				.hasMessageContaining("Keep one"));
	}

	@Test
	void distributedLockInPermitMode() {
		this.runner.withBean(PermitLock.class)
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(LockConfigurationException.class)
				.hasMessageStartingWith("Invalid @DistributedLock on " + PermitLock.class.getName() + ".call()")
				.hasMessageContaining("mode = PERMIT")
				.hasMessageContaining("Use @DistributedConcurrencyLimit(limit = ..., key = ...)"));
	}

	@Test
	void keyTemplateProblemsNameTheConcurrencyLimit() {
		this.runner.withBean(UnknownParameter.class)
			.run((context) -> assertFailure(context).hasMessageContaining(".call(long), key 'partner:#partner'")
				.hasMessageContaining("names no parameter of the method"));
	}

	@Test
	void fallbackProblemsNameTheConcurrencyLimit() {
		this.runner.withBean(MissingFallback.class)
			.run((context) -> assertFailure(context)
				.hasMessageContaining("there is no fallback method missing(long) with the same parameters"));
	}

	private static AbstractThrowableAssert<?, ? extends Throwable> assertFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		return assertThat(context.getStartupFailure()).rootCause()
			.isInstanceOf(LockConfigurationException.class)
			.hasMessageStartingWith("Invalid @DistributedConcurrencyLimit on ");
	}

	static class Valid {

		@DistributedConcurrencyLimit(3)
		public void byValue() {
		}

		@DistributedConcurrencyLimit(limit = 2, key = "partner:#id", waitTime = "1s", leaseTime = "10s")
		public void byLimit(long id) {
		}

		@DistributedConcurrencyLimit(limitString = "${partner.max-calls}")
		public void byProperty() {
		}

		@DistributedConcurrencyLimit(limitString = "${partner.unset:5}")
		public void byDefault() {
		}

	}

	static class NoLimit {

		@DistributedConcurrencyLimit(key = "partner:#id")
		public void call(long id) {
		}

	}

	static class ZeroLimit {

		@DistributedConcurrencyLimit(0)
		public void call() {
		}

	}

	static class ZeroLimitString {

		@DistributedConcurrencyLimit(limitString = "${partner.none}")
		public void call() {
		}

	}

	static class NotANumber {

		@DistributedConcurrencyLimit(limitString = "${partner.name}")
		public void call() {
		}

	}

	static class MissingProperty {

		@DistributedConcurrencyLimit(limitString = "${partner.missing}")
		public void call() {
		}

	}

	static class BothAnnotations {

		@DistributedLock("partner")
		@DistributedConcurrencyLimit(limit = 2, key = "partner")
		public void call() {
		}

	}

	static class PermitLock {

		@DistributedLock(key = "partner", mode = LockMode.PERMIT)
		public void call() {
		}

	}

	static class UnknownParameter {

		@DistributedConcurrencyLimit(limit = 2, key = "partner:#partner")
		public void call(long id) {
		}

	}

	static class MissingFallback {

		@DistributedConcurrencyLimit(limit = 2, onFailure = DistributedLock.OnFailure.FALLBACK, fallback = "missing")
		public String call(long id) {
			return "called";
		}

	}

}
