package io.github.redislock.contract;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.test.RedisServer;

/**
 * Renewals in chunks ({@link BatchedRenewalTests}) on one Redis server, where any keys
 * share a call.
 */
class StandaloneBatchedRenewalTests extends BatchedRenewalTests {

	@RegisterExtension
	static final Topology<RedisServer> topology = Topology.standalone();

	@Override
	protected LockFixture fixture() {
		return topology.fixture();
	}

	@Override
	protected List<String> names(String stem, int count) {
		return IntStream.range(0, count).mapToObj((i) -> stem + "-" + i).toList();
	}

}
