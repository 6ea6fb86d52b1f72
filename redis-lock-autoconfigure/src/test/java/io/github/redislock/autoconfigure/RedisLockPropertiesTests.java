package io.github.redislock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.github.redislock.LockOptions;
import io.github.redislock.LockRules;
import io.github.redislock.LockRules.Violation;
import io.github.redislock.observation.LockNames;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedisLockProperties}.
 */
class RedisLockPropertiesTests {

	@Test
	void defaultsAreTheEngineDefaults() {
		RedisLockProperties properties = new RedisLockProperties();
		LockOptions defaults = LockOptions.defaults();
		assertThat(properties.isEnabled()).isTrue();
		assertThat(properties.getKeyPrefix()).isEqualTo(defaults.keyPrefix());
		assertThat(properties.getWaitTime()).isEqualTo(defaults.waitTime());
		assertThat(properties.getLeaseTime()).isEqualTo(defaults.leaseTime()).isNull();
		assertThat(properties.getWatchdog().getLease()).isEqualTo(defaults.watchdogLease());
		assertThat(properties.getWatchdog().getRenewInterval()).isEqualTo(defaults.renewInterval());
		assertThat(properties.getMinReplicas()).isEqualTo(defaults.minReplicas());
		assertThat(properties.getReplicationTimeout()).isEqualTo(defaults.replicationTimeout());
	}

	@Test
	void observationDefaultsAreTheObserversDefaults() {
		RedisLockProperties.Observations observations = new RedisLockProperties().getObservations();
		assertThat(observations.isEnabled()).isTrue();
		assertThat(observations.isIncludeKey()).isFalse();
		assertThat(observations.getIdPattern()).isEqualTo(LockNames.DEFAULT_ID_PATTERN);
		assertThat(observations.getMetrics().isEnabled()).isTrue();
	}

	@Test
	void propertyAndOptionBreakingOneRuleGiveTheSameProblem() {
		RedisLockProperties properties = new RedisLockProperties();
		properties.setWaitTime(Duration.ofSeconds(-1));
		String problem = LockRules.waitTime(Duration.ofSeconds(-1)).problem();
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedisLockAutoConfiguration.lockOptions(properties))
			.satisfies((ex) -> assertThat(ex.getReason()).startsWith("redis-lock.wait-time " + problem + ". "));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockOptions.defaults().withWaitTime(Duration.ofSeconds(-1)))
			.withMessageStartingWith("waitTime " + problem + ". ");
	}

	@Test
	void renewIntervalPropertyAndOptionGiveTheSameProblem() {
		RedisLockProperties properties = new RedisLockProperties();
		properties.getWatchdog().setRenewInterval(Duration.ofSeconds(30));
		Violation violation = LockRules.renewInterval(Duration.ofSeconds(30), Duration.ofSeconds(30));
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedisLockAutoConfiguration.lockOptions(properties))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redis-lock.watchdog.renew-interval");
				assertThat(ex.getReason()).isEqualTo(violation.message("redis-lock.watchdog.renew-interval"));
			});
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockOptions.defaults().withWatchdog(Duration.ofSeconds(30), Duration.ofSeconds(30)))
			.withMessage(violation.message("renewInterval"));
	}

	@Test
	void defaultPropertiesGiveDefaultOptions() {
		assertThat(RedisLockAutoConfiguration.lockOptions(new RedisLockProperties())).isEqualTo(LockOptions.defaults());
	}

}
