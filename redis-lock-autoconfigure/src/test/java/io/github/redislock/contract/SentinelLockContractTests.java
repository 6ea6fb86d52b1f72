package io.github.redislock.contract;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.test.RedisSentinels;

/**
 * The lock's contract ({@link LockContractTests}) on a Sentinel-managed primary and
 * replica, reached through Spring Data Redis' sentinel configuration. What holders see
 * when Sentinel fails the primary over is shown in {@code SentinelFailoverTests}.
 */
class SentinelLockContractTests extends LockContractTests {

	@RegisterExtension
	static final Topology<RedisSentinels, SentinelLocks> topology = Topology.sentinels();

	@Override
	protected LockFixture createFixture() {
		return topology.fixture();
	}

}
