package io.github.redislock.contract;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.test.RedisCluster;

/**
 * The lock's contract ({@link LockContractTests}) on a Redis Cluster of three primaries
 * and three replicas, reached through Spring Data Redis' cluster configuration. Tests
 * that loop over {@link LockFixture#names} take one lock on each primary, so each such
 * behaviour is shown for every primary and for release messages that must cross the
 * cluster bus to reach the subscribed node.
 */
class ClusterLockContractTests extends LockContractTests {

	@RegisterExtension
	static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();

	@Override
	protected LockFixture createFixture() {
		return topology.fixture();
	}

}
