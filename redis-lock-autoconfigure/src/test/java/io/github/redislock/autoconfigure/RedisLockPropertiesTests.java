package io.github.redislock.autoconfigure;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockOptions;
import io.github.redislock.observation.LockNames;

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
	void defaultPropertiesGiveDefaultOptions() {
		assertThat(RedisLockAutoConfiguration.lockOptions(new RedisLockProperties())).isEqualTo(LockOptions.defaults());
	}

}
