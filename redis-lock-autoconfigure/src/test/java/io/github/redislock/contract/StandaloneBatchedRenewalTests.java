package io.github.redislock.contract;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redislock.test.RedisServer;

/**
 * Renewals in chunks ({@link BatchedRenewalTests}) on one Redis server, where any keys
 * share a call.
 */
class StandaloneBatchedRenewalTests extends BatchedRenewalTests {

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
	protected LockFixture fixture() {
		return new StandaloneLocks(server);
	}

	@Override
	protected List<String> names(String stem, int count) {
		return IntStream.range(0, count).mapToObj((i) -> stem + "-" + i).toList();
	}

}
