package io.github.redislock.contract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redislock.test.RedisSentinels;

/**
 * The lock's contract ({@link LockContractTests}) on a Sentinel-managed primary and
 * replica, reached through Spring Data Redis' sentinel configuration. What holders see
 * when Sentinel fails the primary over is shown in {@code SentinelFailoverTests}.
 */
class SentinelLockContractTests extends LockContractTests {

	private static RedisSentinels group;

	@BeforeAll
	static void startGroup() {
		group = RedisSentinels.start();
	}

	@AfterAll
	static void closeGroup() {
		if (group != null) {
			group.close();
		}
	}

	@Override
	protected LockFixture createFixture() {
		return new SentinelLocks(group);
	}

}
