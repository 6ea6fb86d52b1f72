package io.github.redislock.test;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Decides whether the running nodes of a cluster form a healthy whole, the way a client
 * that discovers the topology from any of them needs it: each says {@code ok}, each sees
 * the others as alive, all agree on slots and roles, and replicas are in sync.
 */
final class ClusterHealth {

	private ClusterHealth() {
	}

	/**
	 * Returns what is wrong with the cluster as seen by the given nodes.
	 * @param live the nodes that are running and not paused
	 * @return the first problem found, or {@code null} if there is none
	 */
	static String problem(List<RedisServer> live) {
		if (live.isEmpty()) {
			return "no node is running";
		}
		Set<Integer> ports = live.stream().map(RedisServer::port).collect(Collectors.toSet());
		String firstAssignment = null;
		int firstPort = 0;
		for (RedisServer node : live) {
			try (RedisCli cli = node.cli(RedisCluster.QUERY_TIMEOUT)) {
				String state = InfoFields.get((String) cli.command("CLUSTER", "INFO"), "cluster_state");
				if (!"ok".equals(state)) {
					return "node " + node.port() + " reports cluster_state:" + state;
				}
				ClusterNodes view = ClusterNodes.of(cli);
				for (int port : ports) {
					ClusterNodes.Node other = view.byPort(port).orElse(null);
					if (other == null || !other.isConnected() || other.isFailing()) {
						return "node " + node.port() + " sees node " + port + " as "
								+ ((other != null) ? other.flags() : "unknown");
					}
				}
				String assignment = view.assignment(ports::contains);
				if (firstAssignment == null) {
					firstAssignment = assignment;
					firstPort = node.port();
				}
				else if (!firstAssignment.equals(assignment)) {
					return "nodes disagree; node " + firstPort + " sees\n" + firstAssignment + "\nnode " + node.port()
							+ " sees\n" + assignment;
				}
				if (view.myself().isReplica()) {
					String link = InfoFields.get(cli.info("replication"), "master_link_status");
					if (!"up".equals(link)) {
						return "replica " + node.port() + " has master_link_status:" + link;
					}
				}
			}
		}
		return null;
	}

	/**
	 * Returns which node does not see the slot on the given node yet.
	 * @param live the nodes that are running and not paused
	 * @param slot the slot
	 * @param ownerId the id of the node that should serve it
	 * @return the first node with another view, or {@code null} if all agree
	 */
	static String slotOwnerProblem(List<RedisServer> live, int slot, String ownerId) {
		for (RedisServer node : live) {
			try (RedisCli cli = node.cli(RedisCluster.QUERY_TIMEOUT)) {
				Optional<ClusterNodes.Node> owner = ClusterNodes.of(cli).ownerOf(slot);
				if (owner.isEmpty() || !owner.get().id().equals(ownerId)) {
					return "node " + node.port() + " sees slot " + slot + " on "
							+ owner.map(ClusterNodes.Node::port).orElse(null);
				}
			}
		}
		return null;
	}

}
