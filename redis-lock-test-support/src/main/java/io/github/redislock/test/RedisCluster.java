package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A Redis Cluster for tests: three primaries and three replicas, each a
 * {@link RedisServer} on a free loopback port that tests can kill, pause and restart.
 * <p>
 * The nodes run with {@code cluster-node-timeout} {@value #NODE_TIMEOUT_MILLIS} ms, so a
 * primary that is killed or paused for longer is replaced by its replica a few seconds
 * later, and {@code cluster-replica-validity-factor 0}, so a replica takes over however
 * long it was cut off. A node keeps its {@code nodes.conf} across
 * {@link RedisServer#restart() restarts} and rejoins the cluster, but without its data
 * (there is no persistence): a primary restarted before its replica took over comes back
 * empty and still serving its slots, and its replica then copies the empty data set.
 * Queries such as {@link #primaries()} ask a running node for its current view, which may
 * lag behind during a failover: use {@link #awaitHealthy(Duration)} first.
 * <p>
 * Needs a {@code redis-server} binary (on the {@code PATH} or from embedded-redis), not
 * Testcontainers. Always {@link #close() close} the cluster; a JVM shutdown hook kills
 * the nodes left over.
 */
public final class RedisCluster implements AutoCloseable {

	static final int NODE_TIMEOUT_MILLIS = 2000;

	// Short, so that a paused node does not hold up a query for long
	static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

	private static final int PRIMARIES = 3;

	private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

	private final List<RedisServer> nodes;

	private RedisCluster(List<RedisServer> nodes) {
		this.nodes = List.copyOf(nodes);
	}

	/**
	 * Starts three primaries and three replicas, splits the 16384 slots evenly over the
	 * primaries, gives each primary one replica, and waits (up to 30 seconds) until the
	 * cluster is {@link #awaitHealthy(Duration) healthy}.
	 * @return the running cluster
	 * @throws IllegalStateException if a node cannot be started or the cluster does not
	 * become healthy, saying what was still wrong
	 * @throws UnsupportedOperationException if Redis comes from Testcontainers
	 */
	public static RedisCluster start() {
		List<RedisServer> started = new ArrayList<>();
		try {
			for (int i = 0; i < 2 * PRIMARIES; i++) {
				started.add(startNode());
			}
			ClusterFormation.form(started.subList(0, PRIMARIES), started.subList(PRIMARIES, 2 * PRIMARIES));
			RedisCluster cluster = new RedisCluster(started);
			cluster.awaitHealthy(START_TIMEOUT);
			return cluster;
		}
		catch (RuntimeException ex) {
			RedisServer.closeAll(started);
			throw ex;
		}
	}

	private static RedisServer startNode() {
		return RedisServer.start(ShutdownCleanup.createDirectory(), "--cluster-enabled", "yes", "--cluster-config-file",
				"nodes.conf", "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MILLIS),
				"--cluster-replica-validity-factor", "0");
	}

	/**
	 * Returns the hash slot of a key: CRC16 of the key, or of its hash tag (the part
	 * between the first {@code '{'} and the next {@code '}'} if not empty), modulo 16384.
	 * @param key the key, hashed as UTF-8
	 * @return the slot, from 0 to 16383
	 */
	public static int slot(String key) {
		return ClusterSlots.slot(key);
	}

	/**
	 * Returns all six nodes, whatever their current role, in a fixed order: the three
	 * first primaries, then their replicas.
	 * @return the nodes
	 */
	public List<RedisServer> nodes() {
		return this.nodes;
	}

	/**
	 * Returns the nodes that serve slots now, as a running node sees them, ordered by
	 * their lowest slot.
	 * @return the primaries
	 * @throws IllegalStateException if no node answers
	 */
	public List<RedisServer> primaries() {
		return view().primaries().stream().map(this::server).flatMap(Optional::stream).toList();
	}

	/**
	 * Returns the nodes that replicate a primary now, as a running node sees them.
	 * @return the replicas, in the order of {@link #nodes()}
	 * @throws IllegalStateException if no node answers
	 */
	public List<RedisServer> replicas() {
		Set<Integer> ports = view().nodes()
			.stream()
			.filter(ClusterNodes.Node::isReplica)
			.map(ClusterNodes.Node::port)
			.collect(Collectors.toSet());
		return this.nodes.stream().filter((node) -> ports.contains(node.port())).toList();
	}

	/**
	 * Returns the nodes that replicate the given primary now, as a running node sees
	 * them.
	 * @param primary the primary
	 * @return its replicas, usually one
	 * @throws IllegalStateException if no node answers
	 */
	public List<RedisServer> replicasOf(RedisServer primary) {
		ClusterNodes view = view();
		String primaryId = node(view, primary).id();
		return view.replicasOf(primaryId).stream().map(this::server).flatMap(Optional::stream).toList();
	}

	/**
	 * Returns the primary that serves a slot now, as a running node sees it.
	 * @param slot the slot, for example {@code slot("lock:{order}")}
	 * @return the primary
	 * @throws IllegalStateException if no node answers or none serves the slot
	 */
	public RedisServer primaryForSlot(int slot) {
		checkSlot(slot);
		ClusterNodes view = view();
		return view.ownerOf(slot)
			.flatMap(this::server)
			.orElseThrow(() -> new IllegalStateException("No node serves slot " + slot + ": " + view.nodes()));
	}

	/**
	 * Returns the addresses of all nodes for a client to discover the cluster from.
	 * @return the addresses, {@code "127.0.0.1:port"}
	 */
	public List<String> seeds() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/**
	 * Makes a replica take over from its primary and waits (up to 20 seconds) until it is
	 * a primary and the cluster is {@link #awaitHealthy(Duration) healthy} again; its
	 * former primary, if running, becomes its replica. The failover is coordinated with
	 * the primary ({@code CLUSTER FAILOVER}) so no acknowledged write is lost, or forced
	 * ({@code CLUSTER FAILOVER FORCE}) if the primary is not running or paused.
	 * @param replica the replica to promote
	 * @throws IllegalArgumentException if the node is not a replica
	 * @throws IllegalStateException if the failover does not complete in time
	 */
	public void failover(RedisServer replica) {
		ClusterNodes view;
		try (RedisCli cli = replica.cli(QUERY_TIMEOUT)) {
			view = ClusterNodes.of(cli);
		}
		ClusterNodes.Node myself = view.myself();
		if (!myself.isReplica()) {
			throw new IllegalArgumentException(replica + " is not a replica: " + myself.flags());
		}
		Optional<RedisServer> primary = view.nodes()
			.stream()
			.filter((node) -> node.id().equals(myself.primaryId()))
			.findFirst()
			.flatMap(this::server);
		boolean reachable = primary.map((node) -> node.isRunning() && !node.isPaused()).orElse(false);
		try (RedisCli cli = replica.cli(QUERY_TIMEOUT)) {
			if (reachable) {
				cli.command("CLUSTER", "FAILOVER");
			}
			else {
				cli.command("CLUSTER", "FAILOVER", "FORCE");
			}
		}
		Polling.awaitNoProblem(() -> isPrimary(replica) ? null : replica + " is still a replica", CHANGE_TIMEOUT,
				POLL_INTERVAL, "node " + replica.port() + " is a primary");
		awaitHealthy(CHANGE_TIMEOUT);
	}

	/**
	 * Moves a slot and its keys to another primary, as {@code redis-cli --cluster
	 * reshard} does: the slot is marked importing on the target and migrating on the
	 * source, the keys are sent with {@code MIGRATE} in batches, then every primary is
	 * told the new owner. Waits (up to 20 seconds) until every running node agrees and
	 * the cluster is {@link #awaitHealthy(Duration) healthy}. Does nothing if the primary
	 * already serves the slot.
	 * @param slot the slot
	 * @param to the primary to serve it
	 * @throws IllegalArgumentException if the target is not a primary
	 * @throws IllegalStateException if no node serves the slot or the move does not
	 * complete in time
	 */
	public void moveSlot(int slot, RedisServer to) {
		checkSlot(slot);
		ClusterNodes view = view();
		ClusterNodes.Node target = node(view, to);
		if (!target.isPrimary()) {
			throw new IllegalArgumentException(to + " is not a primary: " + target.flags());
		}
		ClusterNodes.Node source = view.ownerOf(slot)
			.orElseThrow(() -> new IllegalStateException("No node serves slot " + slot));
		if (source.id().equals(target.id())) {
			return;
		}
		List<RedisServer> otherPrimaries = view.primaries()
			.stream()
			.filter((node) -> !node.id().equals(source.id()) && !node.id().equals(target.id()))
			.map(this::server)
			.flatMap(Optional::stream)
			.filter(RedisServer::isRunning)
			.toList();
		SlotMigration.move(slot, server(source).orElseThrow(), source.id(), to, target.id(), otherPrimaries);
		Polling.awaitNoProblem(() -> ClusterHealth.slotOwnerProblem(live(), slot, target.id()), CHANGE_TIMEOUT,
				POLL_INTERVAL, "every node sees slot " + slot + " on " + to.port());
		awaitHealthy(CHANGE_TIMEOUT);
	}

	/**
	 * Waits until the cluster is healthy: every node that is running and not paused
	 * reports {@code cluster_state:ok}, knows all those nodes without flagging any as
	 * failing, and agrees with the others on which node serves which slots and which node
	 * replicates which; and every running replica has its link to its primary up. Stopped
	 * or killed nodes do not count, but while one of them still serves slots the cluster
	 * is not {@code ok}. While it is not healthy, slot migrations left half open by a
	 * failover or a restart are closed ({@link AbandonedMigrations}): the cluster would
	 * not heal by itself.
	 * @param timeout how long to wait at most
	 * @throws IllegalStateException on timeout, saying what was still wrong
	 */
	public void awaitHealthy(Duration timeout) {
		try {
			Polling.awaitNoProblem(() -> {
				String problem = ClusterHealth.problem(live());
				if (problem != null) {
					List<String> closed = AbandonedMigrations.close(live());
					if (!closed.isEmpty()) {
						System.err.println("Closed slot migrations left half open: " + closed);
					}
				}
				return problem;
			}, timeout, POLL_INTERVAL, "the cluster is healthy");
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException(ex.getMessage() + "; the nodes as each sees them:\n" + describe(), ex);
		}
	}

	/**
	 * Describes every node for a failure message: whether it runs, and what it reports of
	 * the cluster ({@code cluster_state} and {@code CLUSTER NODES}).
	 * @return one paragraph per node
	 */
	public String describe() {
		StringBuilder description = new StringBuilder();
		for (RedisServer node : this.nodes) {
			description.append("node ").append(node.port());
			if (!node.isRunning() || node.isPaused()) {
				description.append(node.isRunning() ? " paused\n" : " not running\n");
				continue;
			}
			try (RedisCli cli = node.cli(QUERY_TIMEOUT)) {
				String state = (String) cli.command("CLUSTER", "INFO");
				description.append(": ")
					.append(state.lines().filter((line) -> line.startsWith("cluster_state")).findFirst().orElse(""))
					.append('\n')
					.append(cli.command("CLUSTER", "NODES"));
			}
			catch (RuntimeException ex) {
				description.append(": no answer (").append(ex.getMessage()).append(")\n");
			}
		}
		return description.toString();
	}

	/**
	 * Kills every node and deletes their working directories. Calling it again has no
	 * effect.
	 */
	@Override
	public void close() {
		RedisServer.closeAll(this.nodes);
	}

	@Override
	public String toString() {
		return "Redis Cluster " + seeds();
	}

	private List<RedisServer> live() {
		return this.nodes.stream().filter((node) -> node.isRunning() && !node.isPaused()).toList();
	}

	/**
	 * Returns the view of the first running node that answers.
	 */
	private ClusterNodes view() {
		RuntimeException failure = null;
		for (RedisServer node : live()) {
			try (RedisCli cli = node.cli(QUERY_TIMEOUT)) {
				return ClusterNodes.of(cli);
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
		}
		throw new IllegalStateException("No node of " + this + " answers CLUSTER NODES", failure);
	}

	private boolean isPrimary(RedisServer node) {
		try (RedisCli cli = node.cli(QUERY_TIMEOUT)) {
			return ClusterNodes.of(cli).myself().isPrimary();
		}
	}

	private ClusterNodes.Node node(ClusterNodes view, RedisServer server) {
		return view.byPort(server.port())
			.orElseThrow(() -> new IllegalArgumentException(server + " is not a node of " + this));
	}

	private Optional<RedisServer> server(ClusterNodes.Node node) {
		return this.nodes.stream().filter((server) -> server.port() == node.port()).findFirst();
	}

	private static void checkSlot(int slot) {
		if (slot < 0 || slot >= ClusterSlots.COUNT) {
			throw new IllegalArgumentException("Slot " + slot + " is not between 0 and " + (ClusterSlots.COUNT - 1));
		}
	}

}
