package io.github.redislock.contract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redislock.test.RedisCluster;

/**
 * The lock's contract ({@link LockContractTests}) on a Redis Cluster of three primaries
 * and three replicas, reached through Spring Data Redis' cluster configuration. Tests
 * that loop over {@link LockFixture#names} take one lock on each primary, so each such
 * behaviour is shown for every primary and for release messages that must cross the
 * cluster bus to reach the subscribed node.
 */
class ClusterLockContractTests extends LockContractTests {

	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
	}

	@AfterAll
	static void closeCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@Override
	protected LockFixture createFixture() {
		return new ClusterLocks(cluster);
	}

}
