package io.github.redislock.autoconfigure;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockOptions;

import static org.assertj.core.api.Assertions.assertThat;

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
	}

	@Test
	void defaultPropertiesGiveDefaultOptions() {
		assertThat(RedisLockAutoConfiguration.lockOptions(new RedisLockProperties())).isEqualTo(LockOptions.defaults());
	}

}
