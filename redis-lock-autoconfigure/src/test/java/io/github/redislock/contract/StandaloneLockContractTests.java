package io.github.redislock.contract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redislock.test.RedisServer;

/**
 * The lock's contract ({@link LockContractTests}) on one Redis server.
 */
class StandaloneLockContractTests extends LockContractTests {

	private static RedisServer server;

	@BeforeAll
	static void startServer() {
		server = RedisServer.start();
	}

	@AfterAll
	static void closeServer() {
		if (server != null) {
			server.close();
		}
	}

	@Override
	protected LockFixture createFixture() {
		return new StandaloneLocks(server);
	}

}
