package io.github.redislock.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

/**
 * Lock templates on a test Redis Cluster, each with a cluster connection factory of its
 * own (a "node"), closed together; and lock names that land on every primary.
 * <p>
 * Clients refresh their view of the topology when redirected or disconnected and once a
 * second besides, and time out commands after two seconds, so that tests that move slots
 * or fail over primaries see the client follow within a few seconds.
 */
final class ClusterLocks implements AutoCloseable {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(1);

	private static final String PREFIX = LockOptions.DEFAULT_KEY_PREFIX;

	private final RedisCluster cluster;

	private final List<AutoCloseable> resources = new ArrayList<>();

	ClusterLocks(RedisCluster cluster) {
		this.cluster = cluster;
	}

	LockTemplate template() {
		return template(LockOptions.defaults());
	}

	LockTemplate template(LockOptions options) {
		return template(options, COMMAND_TIMEOUT);
	}

	LockTemplate template(LockOptions options, Duration commandTimeout) {
		LockTemplate template = new LockTemplate(connectionFactory(commandTimeout), options);
		this.resources.add(template);
		return template;
	}

	/**
	 * A cluster-aware client for application data, on a connection of its own as an
	 * application would have it: it follows {@code MOVED} and {@code ASK} redirects.
	 */
	StringRedisTemplate data() {
		return new StringRedisTemplate(connectionFactory());
	}

	LettuceConnectionFactory connectionFactory() {
		return connectionFactory(COMMAND_TIMEOUT);
	}

	LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD)
			.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(this.cluster.seeds()), client);
		factory.afterPropertiesSet();
		factory.start();
		this.resources.add(factory::destroy);
		return factory;
	}

	/** A connection to the primary that serves the lock's slot now. */
	RedisCli cliOf(String name) {
		RedisCli cli = primaryOf(name).cli();
		this.resources.add(cli);
		return cli;
	}

	RedisServer primaryOf(String name) {
		return this.cluster.primaryForSlot(slotOf(name));
	}

	/** Delete every key of the cluster; replicas follow their primaries. */
	void flush() {
		for (RedisServer primary : this.cluster.primaries()) {
			try (RedisCli cli = primary.cli()) {
				cli.flushAll();
			}
		}
	}

	static String lockKey(String name) {
		return PREFIX + "{" + name + "}";
	}

	static String fenceKey(String name) {
		return lockKey(name) + ":fence";
	}

	static String releaseChannel(String name) {
		return lockKey(name) + ":released";
	}

	static int slotOf(String name) {
		return RedisCluster.slot(lockKey(name));
	}

	/**
	 * Lock names {@code stem-0}, {@code stem-1}, … chosen so that each primary serves
	 * {@code perPrimary} of them, ordered round-robin over the primaries in the order of
	 * their slots: the first three names hit three different primaries.
	 */
	static List<String> namesOnEveryPrimary(RedisCluster cluster, String stem, int perPrimary) {
		Map<RedisServer, List<String>> byPrimary = new LinkedHashMap<>();
		cluster.primaries().forEach((primary) -> byPrimary.put(primary, new ArrayList<>()));
		for (int i = 0; byPrimary.values().stream().anyMatch((names) -> names.size() < perPrimary); i++) {
			String name = stem + "-" + i;
			List<String> names = byPrimary.get(cluster.primaryForSlot(slotOf(name)));
			if (names.size() < perPrimary) {
				names.add(name);
			}
		}
		List<String> names = new ArrayList<>();
		for (int i = 0; i < perPrimary; i++) {
			for (List<String> ofPrimary : byPrimary.values()) {
				names.add(ofPrimary.get(i));
			}
		}
		return names;
	}

	/**
	 * An executor whose thread names start with the given prefix, so that a test can tell
	 * its waiters from other threads: make the prefix unique.
	 */
	static ExecutorService executor(String threadNamePrefix) {
		AtomicInteger count = new AtomicInteger();
		return Executors.newCachedThreadPool((task) -> new Thread(task, threadNamePrefix + count.incrementAndGet()));
	}

	/** How many threads whose name starts with the prefix sleep waiting for a lock. */
	static long parkedWaiters(String threadNamePrefix) {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().getName().startsWith(threadNamePrefix))
			.filter((entry) -> entry.getKey().getState() == Thread.State.TIMED_WAITING)
			.filter((entry) -> Arrays.stream(entry.getValue())
				.anyMatch((frame) -> frame.getClassName().equals("io.github.redislock.engine.Waiter")))
			.count();
	}

	@Override
	public void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

}
