package io.github.redislock.contract;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

/**
 * {@link ReplayedCommandContract} on one Redis server, reached through a proxy.
 */
@RedisTest
class StandaloneReplayedCommandTests extends ReplayedCommandContract {

	private FaultProxy proxy;

	private StandaloneLocks locks;

	@BeforeEach
	void setUp(RedisServer server) {
		this.proxy = FaultProxy.start(server.host(), server.port());
		this.locks = new StandaloneLocks(server);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.proxy.pass();
		this.locks.close();
		this.proxy.close();
	}

	@Override
	protected LockFixture locks() {
		return this.locks;
	}

	@Override
	protected LockTemplate proxiedTemplate(LockOptions options) {
		return this.locks.template(this.proxy.host(), this.proxy.port(), options, new CountingObserver());
	}

	@Override
	protected List<FaultProxy> proxies() {
		return List.of(this.proxy);
	}

}
