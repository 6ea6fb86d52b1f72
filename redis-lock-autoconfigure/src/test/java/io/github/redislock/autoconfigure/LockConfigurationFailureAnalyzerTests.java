package io.github.redislock.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockConfigurationFailureAnalyzer}.
 */
@RedisTest
class LockConfigurationFailureAnalyzerTests {

	@Test
	void isRegistered() {
		// Analyzers of other modules that need constructor arguments are left out.
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
			.load(FailureAnalyzer.class, (type, name, failure) -> {
			});
		assertThat(analyzers).hasAtLeastOneElementOfType(LockConfigurationFailureAnalyzer.class);
	}

	@Test
	void presentsClassMethodKeyAndAction(RedisServer redis) {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
			.withBean(Misnamed.class)
			.run((context) -> {
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("A @DistributedLock declaration is invalid:")
					.contains("Class:  " + Misnamed.class.getName())
					.contains("Method: public void " + Misnamed.class.getName() + ".ship(long)")
					.contains("Key:    order:#id")
					.contains("Reason: '#id' in '#id' names no parameter of the method; its parameters are [orderId]");
				assertThat(analysis.getAction())
					.isEqualTo("Use one of the parameter names, #p0 for the first parameter, or #root.methodName.");
			});
	}

	@Test
	void presentsAnInvalidConcurrencyLimit(RedisServer redis) {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
					DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"partner.max-calls=many")
			.withBean(Unlimited.class)
			.run((context) -> {
				FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("A @DistributedConcurrencyLimit declaration is invalid:")
					.contains("Method: public void " + Unlimited.class.getName() + ".quote(long)")
					.contains("Reason: limitString = \"${partner.max-calls}\" resolves to 'many', not a whole number")
					.doesNotContain("Key:");
				assertThat(analysis.getAction()).startsWith("Write a whole number of 1 or more");
			});
	}

	static class Unlimited {

		@DistributedConcurrencyLimit(limitString = "${partner.max-calls}", key = "partner:#id")
		public void quote(long id) {
		}

	}

	static class Misnamed {

		@DistributedLock("order:#id")
		public void ship(long orderId) {
		}

	}

}
