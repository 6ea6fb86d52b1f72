package io.github.redislock.test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;

/**
 * One node's view of a cluster: its reply to {@code CLUSTER NODES}, parsed. Lines read
 * {@code <id> <ip:port@cport[,hostname]> <flags> <primary> <ping-sent> <pong-recv>
 * <config-epoch> <link-state> <slot>...} in Redis 6.2 and 7.
 */
final class ClusterNodes {

	private final List<Node> nodes;

	private ClusterNodes(List<Node> nodes) {
		this.nodes = nodes;
	}

	/**
	 * Asks a node for its view of the cluster.
	 * @param cli a connection to the node
	 * @return the view
	 */
	static ClusterNodes of(RedisCli cli) {
		return parse((String) cli.command("CLUSTER", "NODES"));
	}

	/**
	 * Parses a reply to {@code CLUSTER NODES}.
	 * @param reply the reply, one line per node
	 * @return the view
	 */
	static ClusterNodes parse(String reply) {
		List<Node> nodes = new ArrayList<>();
		for (String line : reply.split("\r?\n")) {
			if (!line.isBlank()) {
				nodes.add(Node.parse(line.trim()));
			}
		}
		return new ClusterNodes(List.copyOf(nodes));
	}

	/**
	 * Returns every node in the view.
	 * @return the nodes
	 */
	List<Node> nodes() {
		return this.nodes;
	}

	/**
	 * Returns the node that gave this view.
	 * @return the node
	 */
	Node myself() {
		return this.nodes.stream()
			.filter((node) -> node.flags().contains("myself"))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("CLUSTER NODES has no 'myself' line"));
	}

	/**
	 * Returns the node with the given port.
	 * @param port the port
	 * @return the node, or empty if the view does not have it
	 */
	Optional<Node> byPort(int port) {
		return this.nodes.stream().filter((node) -> node.port() == port).findFirst();
	}

	/**
	 * Returns the primaries that serve slots, ordered by their lowest slot.
	 * @return the primaries
	 */
	List<Node> primaries() {
		return this.nodes.stream()
			.filter((node) -> node.isPrimary() && !node.slots().isEmpty())
			.sorted(Comparator.comparingInt((node) -> node.slots().get(0)[0]))
			.toList();
	}

	/**
	 * Returns the replicas of a node.
	 * @param primaryId the id of the primary
	 * @return the replicas
	 */
	List<Node> replicasOf(String primaryId) {
		return this.nodes.stream().filter((node) -> primaryId.equals(node.primaryId())).toList();
	}

	/**
	 * Returns the node that serves a slot.
	 * @param slot the slot
	 * @return the node, or empty if no node serves it
	 */
	Optional<Node> ownerOf(int slot) {
		return this.nodes.stream().filter((node) -> node.isPrimary() && node.owns(slot)).findFirst();
	}

	/**
	 * Returns the roles and slots of the nodes on the given ports, in a form that is
	 * equal for two views that agree on them.
	 * @param ports which ports to include
	 * @return the description
	 */
	String assignment(IntPredicate ports) {
		return this.nodes.stream()
			.filter((node) -> ports.test(node.port()))
			.sorted(Comparator.comparing(Node::id))
			.map(Node::assignment)
			.collect(Collectors.joining("\n"));
	}

	/**
	 * One line of {@code CLUSTER NODES}.
	 *
	 * @param id the node id
	 * @param port the client port, 0 if the address is not known yet
	 * @param flags the flags, such as {@code myself}, {@code master}, {@code slave},
	 * {@code fail?}, {@code fail} or {@code handshake}
	 * @param primaryId the id of its primary, or {@code null} for a primary
	 * @param slots the slot ranges it serves, as {@code [first, last]}, without the slots
	 * being imported or migrated
	 * @param openSlots the slots it imports or migrates, which only its own line lists
	 */
	record Node(String id, int port, Set<String> flags, String primaryId, List<int[]> slots, List<OpenSlot> openSlots) {

		static Node parse(String line) {
			String[] fields = line.split(" ");
			String address = fields[1];
			int at = address.indexOf('@');
			String hostPort = (at >= 0) ? address.substring(0, at) : address;
			String portText = hostPort.substring(hostPort.lastIndexOf(':') + 1);
			int port = portText.isEmpty() ? 0 : Integer.parseInt(portText);
			String primaryId = "-".equals(fields[3]) ? null : fields[3];
			List<int[]> slots = new ArrayList<>();
			List<OpenSlot> openSlots = new ArrayList<>();
			for (int i = 8; i < fields.length; i++) {
				String range = fields[i];
				if (range.startsWith("[")) {
					openSlots.add(OpenSlot.parse(range));
					continue;
				}
				int dash = range.indexOf('-');
				int first = Integer.parseInt((dash >= 0) ? range.substring(0, dash) : range);
				int last = (dash >= 0) ? Integer.parseInt(range.substring(dash + 1)) : first;
				slots.add(new int[] { first, last });
			}
			slots.sort(Comparator.comparingInt((range) -> range[0]));
			return new Node(fields[0], port, Set.of(fields[2].split(",")), primaryId, List.copyOf(slots),
					List.copyOf(openSlots));
		}

		boolean isPrimary() {
			return this.flags.contains("master");
		}

		boolean isReplica() {
			return this.flags.contains("slave");
		}

		boolean isFailing() {
			return this.flags.contains("fail") || this.flags.contains("fail?");
		}

		boolean isConnected() {
			return !this.flags.contains("handshake") && !this.flags.contains("noaddr") && this.port != 0;
		}

		boolean owns(int slot) {
			return this.slots.stream().anyMatch((range) -> range[0] <= slot && slot <= range[1]);
		}

		String assignment() {
			String ranges = this.slots.stream()
				.map((range) -> range[0] + "-" + range[1])
				.collect(Collectors.joining(","));
			return this.id + " " + this.port + " " + (isPrimary() ? "primary" : "replica of " + this.primaryId) + " "
					+ ranges;
		}

	}

	/**
	 * A slot that a node imports from another node, {@code [slot-<-id]}, or migrates to
	 * another node, {@code [slot->-id]}, while a move is under way.
	 *
	 * @param slot the slot
	 * @param importing whether the node imports the slot, rather than migrates it
	 * @param peerId the id of the node it imports the slot from or migrates it to
	 */
	record OpenSlot(int slot, boolean importing, String peerId) {

		static OpenSlot parse(String field) {
			String state = field.substring(1, field.length() - 1);
			boolean importing = state.contains("-<-");
			String[] parts = state.split(importing ? "-<-" : "->-");
			return new OpenSlot(Integer.parseInt(parts[0]), importing, parts[1]);
		}

	}

}
