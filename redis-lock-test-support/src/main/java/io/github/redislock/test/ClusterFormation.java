package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns fresh cluster-enabled servers into a cluster with commands alone, as
 * {@code redis-cli --cluster create} would, because the embedded Redis 6.2 comes without
 * {@code redis-cli}: slots split evenly over the primaries, every node met, one replica
 * per primary.
 */
final class ClusterFormation {

	private static final Duration MEET_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

	private ClusterFormation() {
	}

	/**
	 * Forms the cluster and returns once every node knows every other one and the
	 * replicas were told whom to replicate; the caller then waits until it is healthy.
	 * @param primaries the nodes to serve the slots
	 * @param replicas the nodes to replicate them, the one at index {@code i} replicating
	 * the primary at index {@code i}
	 */
	static void form(List<RedisServer> primaries, List<RedisServer> replicas) {
		List<String> primaryIds = new ArrayList<>();
		for (int i = 0; i < primaries.size(); i++) {
			try (RedisCli cli = primaries.get(i).cli()) {
				// Distinct epochs up front spare the cluster resolving the collision
				// itself
				cli.command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
				int first = ClusterSlots.COUNT * i / primaries.size();
				int last = ClusterSlots.COUNT * (i + 1) / primaries.size() - 1;
				addSlots(cli, primaries.get(i).version(), first, last);
				primaryIds.add(ClusterNodes.of(cli).myself().id());
			}
		}
		List<RedisServer> all = new ArrayList<>(primaries);
		all.addAll(replicas);
		try (RedisCli cli = all.get(0).cli()) {
			for (RedisServer other : all.subList(1, all.size())) {
				cli.command("CLUSTER", "MEET", other.host(), Integer.toString(other.port()));
			}
		}
		Polling.awaitNoProblem(() -> strangers(all), MEET_TIMEOUT, POLL_INTERVAL, "all cluster nodes know each other");
		for (int i = 0; i < replicas.size(); i++) {
			try (RedisCli cli = replicas.get(i).cli()) {
				cli.command("CLUSTER", "REPLICATE", primaryIds.get(i));
			}
		}
	}

	private static void addSlots(RedisCli cli, String version, int first, int last) {
		if (majorVersion(version) >= 7) {
			cli.command("CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
			return;
		}
		List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
		for (int slot = first; slot <= last; slot++) {
			args.add(Integer.toString(slot));
		}
		cli.command(args.toArray(new String[0]));
	}

	/**
	 * Returns the major version of a Redis version.
	 * @param version the version, for example {@code "7.0.15"}
	 * @return the major version, for example 7
	 */
	static int majorVersion(String version) {
		int dot = version.indexOf('.');
		return Integer.parseInt((dot >= 0) ? version.substring(0, dot) : version);
	}

	/**
	 * Returns which node does not know which other one yet, or {@code null} if all know
	 * each other.
	 */
	private static String strangers(List<RedisServer> nodes) {
		for (RedisServer node : nodes) {
			ClusterNodes view;
			try (RedisCli cli = node.cli(RedisCluster.QUERY_TIMEOUT)) {
				view = ClusterNodes.of(cli);
			}
			for (RedisServer other : nodes) {
				boolean known = view.byPort(other.port()).map(ClusterNodes.Node::isConnected).orElse(false);
				if (!known) {
					return "node " + node.port() + " does not know node " + other.port() + " yet";
				}
			}
		}
		return null;
	}

}
