package io.github.redislock.contract;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.test.RedisServer;

/**
 * {@link LeastPrivilegeContract} on one Redis server.
 */
class StandaloneLeastPrivilegeTests extends LeastPrivilegeContract {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	@Override
	protected LockFixture createFixture() {
		return topology.fixture();
	}

	@Override
	protected List<RedisServer> servers() {
		return List.of(topology.servers());
	}

}
