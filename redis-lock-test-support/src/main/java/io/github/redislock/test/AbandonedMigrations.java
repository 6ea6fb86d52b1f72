package io.github.redislock.test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Closes slot migrations that a cluster left half open, as {@code redis-cli --cluster
 * fix} does for the simple cases: a node that imports a slot from a node that does not
 * migrate it to it, or migrates a slot to a node that does not import it.
 * <p>
 * Such a state outlives the move it belonged to when the other side of it failed over or
 * restarted, and it is not harmless: a node that imports a slot ignores what gossip says
 * about the slot's owner, so once the owner changes (a failover) the importing node sees
 * the slot served by nobody and reports {@code cluster_state:fail} for good. An importing
 * node is closed only when it holds no key of the slot, since such keys would otherwise
 * be dropped; a migrating node serves the slot and keeps its keys.
 */
final class AbandonedMigrations {

	private AbandonedMigrations() {
	}

	/**
	 * Close the half-open migrations among the given nodes.
	 * @param live the nodes that are running and not paused
	 * @return what was closed, for a log line; empty when nothing was
	 */
	static List<String> close(List<RedisServer> live) {
		Map<Open, RedisServer> open = new LinkedHashMap<>();
		for (RedisServer node : live) {
			try (RedisCli cli = node.cli(RedisCluster.QUERY_TIMEOUT)) {
				ClusterNodes.Node myself = ClusterNodes.of(cli).myself();
				myself.openSlots().forEach((slot) -> open.put(new Open(myself.id(), slot), node));
			}
			catch (RuntimeException ex) {
				// Not answering now: the next poll asks again.
			}
		}
		List<String> closed = new ArrayList<>();
		open.forEach((state, node) -> {
			if (open.containsKey(state.otherSide())) {
				return;
			}
			try (RedisCli cli = node.cli(RedisCluster.QUERY_TIMEOUT)) {
				String slotText = Integer.toString(state.slot().slot());
				if (state.slot().importing()
						&& ((Number) cli.command("CLUSTER", "COUNTKEYSINSLOT", slotText)).longValue() > 0) {
					return;
				}
				cli.command("CLUSTER", "SETSLOT", slotText, "STABLE");
				closed.add("node " + node.port() + (state.slot().importing() ? " importing" : " migrating") + " slot "
						+ slotText);
			}
			catch (RuntimeException ex) {
				// Tried again at the next poll.
			}
		});
		return closed;
	}

	/**
	 * A node's open slot.
	 *
	 * @param nodeId the node's id
	 * @param slot the slot it imports or migrates
	 */
	private record Open(String nodeId, ClusterNodes.OpenSlot slot) {

		/** The state the peer has while the move is under way. */
		Open otherSide() {
			return new Open(this.slot.peerId(),
					new ClusterNodes.OpenSlot(this.slot.slot(), !this.slot.importing(), this.nodeId));
		}

	}

}
