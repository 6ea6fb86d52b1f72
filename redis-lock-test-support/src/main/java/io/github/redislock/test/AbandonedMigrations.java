package io.github.redislock.test;

import java.util.ArrayList;
import java.util.List;

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
		List<OpenSlot> open = new ArrayList<>();
		for (RedisServer node : live) {
			try (RedisCli cli = node.cli(RedisCluster.QUERY_TIMEOUT)) {
				open.addAll(openSlots(node, (String) cli.command("CLUSTER", "NODES")));
			}
			catch (RuntimeException ex) {
				// Not answering now: the next poll asks again.
			}
		}
		List<String> closed = new ArrayList<>();
		for (OpenSlot slot : open) {
			if (open.contains(slot.otherSide())) {
				continue;
			}
			try (RedisCli cli = slot.node().cli(RedisCluster.QUERY_TIMEOUT)) {
				String slotText = Integer.toString(slot.slot());
				if (slot.importing()
						&& ((Number) cli.command("CLUSTER", "COUNTKEYSINSLOT", slotText)).longValue() > 0) {
					continue;
				}
				cli.command("CLUSTER", "SETSLOT", slotText, "STABLE");
				closed.add("node " + slot.node().port() + (slot.importing() ? " importing" : " migrating") + " slot "
						+ slot.slot());
			}
			catch (RuntimeException ex) {
				// Tried again at the next poll.
			}
		}
		return closed;
	}

	/**
	 * The open slots of a node from its {@code CLUSTER NODES}: on its own line,
	 * {@code [slot-<-id]} when importing from that node and {@code [slot->-id]} when
	 * migrating to it.
	 */
	static List<OpenSlot> openSlots(RedisServer node, String clusterNodes) {
		List<OpenSlot> open = new ArrayList<>();
		for (String line : clusterNodes.split("\n")) {
			String[] fields = line.trim().split(" ");
			if (fields.length < 3 || !fields[2].contains("myself")) {
				continue;
			}
			for (int i = 8; i < fields.length; i++) {
				String field = fields[i];
				if (!field.startsWith("[") || !field.endsWith("]")) {
					continue;
				}
				String state = field.substring(1, field.length() - 1);
				boolean importing = state.contains("-<-");
				String[] parts = state.split(importing ? "-<-" : "->-");
				open.add(new OpenSlot(node, fields[0], Integer.parseInt(parts[0]), importing, parts[1]));
			}
		}
		return open;
	}

	/**
	 * A slot that a node imports from, or migrates to, another node.
	 *
	 * @param node the node
	 * @param nodeId its id
	 * @param slot the slot
	 * @param importing whether it imports the slot, rather than migrates it
	 * @param peerId the id of the node it imports from or migrates to
	 */
	record OpenSlot(RedisServer node, String nodeId, int slot, boolean importing, String peerId) {

		/** The state the peer has while the move is under way. */
		OpenSlot otherSide() {
			return new OpenSlot(null, this.peerId, this.slot, !this.importing, this.nodeId);
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof OpenSlot slot && slot.nodeId.equals(this.nodeId) && slot.slot == this.slot
					&& slot.importing == this.importing && slot.peerId.equals(this.peerId);
		}

		@Override
		public int hashCode() {
			return this.nodeId.hashCode() * 31 + this.slot;
		}

	}

}
