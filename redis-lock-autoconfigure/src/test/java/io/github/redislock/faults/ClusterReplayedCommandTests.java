package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

/**
 * {@link ReplayedCommandContract} on a Redis Cluster of three primaries and three
 * replicas, each node reached through a proxy of its own: the client maps every node
 * address the cluster announces to that node's proxy.
 */
class ClusterReplayedCommandTests extends ReplayedCommandContract {

	private static RedisCluster cluster;

	private final Map<Integer, FaultProxy> proxies = new HashMap<>();

	private final List<RedisCli> clis = new ArrayList<>();

	private ClientResources resources;

	private LettuceConnectionFactory connectionFactory;

	private LockTemplate template;

	private LockDiagnostics diagnostics;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
	}

	@AfterAll
	static void closeCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void setUp() {
		for (RedisServer node : cluster.nodes()) {
			this.proxies.put(node.port(), FaultProxy.start(node.host(), node.port()));
		}
		for (RedisServer primary : cluster.primaries()) {
			this.clis.add(primary.cli());
		}
		this.resources = ClientResources.builder()
			.socketAddressResolver(MappingSocketAddressResolver.create(this::throughProxy))
			.build();
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(LockFixture.COMMAND_TIMEOUT)
			.clientResources(this.resources)
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
			.build();
		this.connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.seeds()), client);
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
	}

	@AfterEach
	void tearDown() {
		if (this.template != null) {
			this.template.close();
		}
		this.connectionFactory.destroy();
		this.resources.shutdown(0, 5, TimeUnit.SECONDS);
		this.proxies.values().forEach(FaultProxy::close);
		this.proxies.clear();
		this.clis.forEach(RedisCli::close);
		for (RedisServer primary : cluster.primaries()) {
			try (RedisCli cli = primary.cli()) {
				cli.flushAll();
			}
		}
	}

	private HostAndPort throughProxy(HostAndPort address) {
		FaultProxy proxy = this.proxies.get(address.getPort());
		return (proxy != null) ? HostAndPort.of(proxy.host(), proxy.port()) : address;
	}

	@Override
	protected LockTemplate template(LockOptions options) {
		RedisLockEngine engine = new RedisLockEngine(this.connectionFactory, options);
		this.template = new LockTemplate(engine);
		this.diagnostics = engine.diagnostics();
		return this.template;
	}

	@Override
	protected LockDiagnostics diagnostics(LockTemplate template) {
		return this.diagnostics;
	}

	@Override
	protected List<FaultProxy> proxies() {
		return List.copyOf(this.proxies.values());
	}

	@Override
	protected long scriptCalls() {
		return this.clis.stream().mapToLong(ReplayedCommandContract::scriptCalls).sum();
	}

	@Override
	protected long existing(String name, String... keys) {
		return (Long) command(keys[0], ReplayedCommandTests.concat("EXISTS", keys));
	}

	@Override
	protected Object command(String key, String... command) {
		try (RedisCli cli = cluster.primaryForSlot(RedisCluster.slot(key)).cli(Duration.ofSeconds(5))) {
			return cli.command(command);
		}
	}

}
