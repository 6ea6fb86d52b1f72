package io.github.redislock.contract;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.test.RedisSentinels;
import io.github.redislock.test.RedisServer;

/**
 * {@link LeastPrivilegeContract} on a Sentinel group: the client asks the sentinels for
 * the primary without signing in, and signs in to the primary as the least-privileged
 * user.
 */
class SentinelLeastPrivilegeTests extends LeastPrivilegeContract {

	@RegisterExtension
	static final Topology<RedisSentinels, SentinelLocks> topology = Topology.sentinels();

	@Override
	protected LockFixture createFixture() {
		return topology.fixture();
	}

	@Override
	protected List<RedisServer> servers() {
		return List.of(topology.servers().primary(), topology.servers().replica());
	}

}
