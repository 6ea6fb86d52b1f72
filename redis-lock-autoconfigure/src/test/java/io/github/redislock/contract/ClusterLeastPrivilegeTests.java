package io.github.redislock.contract;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

/**
 * {@link LeastPrivilegeContract} on a Redis Cluster: the client reads the cluster's
 * topology and each node's version as the least-privileged user too.
 */
class ClusterLeastPrivilegeTests extends LeastPrivilegeContract {

	@RegisterExtension
	static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();

	@Override
	protected LockFixture createFixture() {
		return topology.fixture();
	}

	@Override
	protected List<RedisServer> servers() {
		return topology.servers().nodes();
	}

}
