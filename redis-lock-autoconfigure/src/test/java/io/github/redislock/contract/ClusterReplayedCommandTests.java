package io.github.redislock.contract;

import java.util.List;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCluster;

/**
 * {@link ReplayedCommandContract} on a Redis Cluster of three primaries and three
 * replicas, each node reached through a proxy of its own: the client maps every node
 * address the cluster announces to that node's proxy.
 */
class ClusterReplayedCommandTests extends ReplayedCommandContract {

	@RegisterExtension
	static final Topology<RedisCluster> topology = Topology.cluster();

	private ProxiedServers proxied;

	private ClusterLocks locks;

	private LettuceConnectionFactory connectionFactory;

	@BeforeEach
	void setUp() {
		this.proxied = new ProxiedServers(topology.servers().nodes());
		this.locks = new ClusterLocks(topology.servers());
		this.locks.flush();
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(LockFixture.COMMAND_TIMEOUT)
			.clientResources(this.proxied.clientResources())
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
			.build();
		this.connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(topology.servers().seeds()),
				client);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
	}

	@AfterEach
	void tearDown() throws Exception {
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
