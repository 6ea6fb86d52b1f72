package io.github.redislock.contract;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.test.RedisServer;

/**
 * The lock's contract ({@link LockContractTests}) on one Redis server.
 */
class StandaloneLockContractTests extends LockContractTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	@Override
	protected LockFixture createFixture() {
		return topology.fixture();
	}

}
