package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

/**
 * Lock nodes on a test Redis Cluster, each with a cluster connection factory of its own,
 * and lock names that land on every primary.
 * <p>
 * Clients refresh their view of the topology when redirected or disconnected and once a
 * second besides, so that tests that move slots or fail over primaries see the client
 * follow within a few seconds.
 */
public final class ClusterLocks extends LockFixture {

	private static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(1);

	private final RedisCluster cluster;

	/**
	 * Nodes on the given cluster.
	 * @param cluster the cluster
	 */
	public ClusterLocks(RedisCluster cluster) {
		this.cluster = cluster;
	}

	/**
	 * A connection to the primary that serves the lock's slot now, closed on
	 * {@link #close()}.
	 * @param name the lock name
	 * @return the connection
	 */
	public RedisCli cliOf(String name) {
		return cli(name);
	}

	/**
	 * The primary that serves the lock's slot now.
	 * @param name the lock name
	 * @return the primary
	 */
	public RedisServer primaryOf(String name) {
		return this.cluster.primaryForSlot(slotOf(name));
	}

	@Override
	public RedisServer serverOf(String name) {
		return primaryOf(name);
	}

	@Override
	public List<RedisServer> primaries() {
		return this.cluster.primaries();
	}

	@Override
	public List<RedisServer> servers() {
		return this.cluster.nodes();
	}

	@Override
	public List<String> names(String stem, int perServer) {
		return namesOnEveryPrimary(this.cluster, stem, perServer);
	}

	/**
	 * Names in three slots, one served by each primary: a script may touch the keys of
	 * one slot only, and locks spread over all 16,384 slots would share a call only when
	 * more of them than that are held.
	 */
	@Override
	public List<String> namesRenewedTogether(String stem, int count) {
		return namesInSlots(this.cluster, stem, count, 3);
	}

	@Override
	protected LettuceConnectionFactory createConnectionFactory(LettuceClientConfigurationBuilder client) {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD)
			.build();
		return new LettuceConnectionFactory(new RedisClusterConfiguration(this.cluster.seeds()),
				client.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build()).build());
	}

	/**
	 * The key of the lock's fencing counter, with the default prefix.
	 * @param name the lock name
	 * @return the key
	 */
	public static String fenceKey(String name) {
		return lockKey(name) + ":fence";
	}

	/**
	 * The channel the lock's releases are published on, with the default prefix.
	 * @param name the lock name
	 * @return the channel
	 */
	public static String releaseChannel(String name) {
		return lockKey(name) + ":released";
	}

	/**
	 * The slot of the lock's keys, with the default prefix.
	 * @param name the lock name
	 * @return the slot
	 */
	public static int slotOf(String name) {
		return RedisCluster.slot(lockKey(name));
	}

	/**
	 * Lock names {@code stem-0}, {@code stem-1}, … chosen so that each primary serves
	 * {@code perPrimary} of them, ordered round-robin over the primaries in the order of
	 * their slots: the first three names hit three different primaries.
	 * @param cluster the cluster
	 * @param stem the start of each name
	 * @param perPrimary how many names each primary serves
	 * @return the names
	 */
	public static List<String> namesOnEveryPrimary(RedisCluster cluster, String stem, int perPrimary) {
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
	 * Lock names {@code stem-i} in the given number of slots, on different primaries
	 * while there are.
	 * @param cluster the cluster
	 * @param stem the start of each name
	 * @param count how many names
	 * @param slotCount in how many slots
	 * @return the names
	 */
	public static List<String> namesInSlots(RedisCluster cluster, String stem, int count, int slotCount) {
		Set<Integer> slots = namesOnEveryPrimary(cluster, stem + "-slot", 1).stream()
			.map(ClusterLocks::slotOf)
			.limit(slotCount)
			.collect(Collectors.toSet());
		List<String> names = new ArrayList<>(count);
		for (int i = 0; names.size() < count; i++) {
			String name = stem + "-" + i;
			if (slots.contains(slotOf(name))) {
				names.add(name);
			}
		}
		return names;
	}

}
