package io.github.redislock.contract;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisSentinels;

/**
 * {@link ReplayedCommandContract} on a Sentinel group: the client asks the sentinels
 * directly for the primary, and reaches the primary (and the replica, were it promoted)
 * through a proxy of its own.
 */
class SentinelReplayedCommandTests extends ReplayedCommandContract {

	@RegisterExtension
	static final Topology<RedisSentinels> topology = Topology.sentinels();

	private ProxiedServers proxied;

	private SentinelLocks locks;

	private LettuceConnectionFactory connectionFactory;

	@BeforeEach
	void setUp() {
		this.proxied = new ProxiedServers(List.of(topology.servers().primary(), topology.servers().replica()));
		this.locks = new SentinelLocks(topology.servers());
		this.locks.flush();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(LockFixture.COMMAND_TIMEOUT)
			.clientResources(this.proxied.clientResources())
			.build();
		this.connectionFactory = new LettuceConnectionFactory(this.locks.configuration(), client);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.proxies().forEach(FaultProxy::pass);
		this.locks.close();
		this.connectionFactory.destroy();
		this.proxied.close();
	}

	@Override
	protected LockFixture locks() {
		return this.locks;
	}

	@Override
	protected LockTemplate proxiedTemplate(LockOptions options) {
		return this.locks.template(new RedisLockEngine(this.connectionFactory, options));
	}

	@Override
	protected List<FaultProxy> proxies() {
		return this.proxied.proxies();
	}

}
