package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.faults.Nemesis.Fault;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

/**
 * Faults of nodes that lock on a Redis Cluster. Each hits every node, since every node
 * uses every shard.
 * <ul>
 * <li>{@code KILL-CLIENTS}: a primary (sometimes every primary) is stopped for a moment
 * while the storm threads send, told to close its clients' connections, and resumed: it
 * runs the commands that had arrived, then closes the connections before their answers
 * went out, so that Lettuce sends them again. Twice a round;</li>
 * <li>{@code SHARD-PAUSE}: a primary is stopped (SIGSTOP) for up to a few seconds, past
 * which its replica takes over: a blackholed shard;</li>
 * <li>{@code MIGRATE}: the slot of a hot lock moves to another primary;</li>
 * <li>{@code FAILOVER}: a replica takes over from its primary, coordinated;</li>
 * <li>{@code NODE-RESTART}: a primary restarts without its data;</li>
 * <li>{@code PAUSE}: a node's JVM is stopped past its leases.</li>
 * </ul>
 * The cluster is made healthy again at the end of each fault.
 */
final class ClusterFaults implements Nemesis.Faults {

	/** How long the cluster may take to become healthy after a fault. */
	private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(30);

	private final RedisCluster cluster;

	private final List<JavaProcess> nodes;

	private final RedisCli control;

	ClusterFaults(RedisCluster cluster, List<JavaProcess> nodes, RedisCli control) {
		this.cluster = cluster;
		this.nodes = nodes;
		this.control = control;
	}

	@Override
	public List<String> round() {
		return List.of("KILL-CLIENTS", "SHARD-PAUSE", "MIGRATE", "FAILOVER", "NODE-RESTART", "PAUSE", "KILL-CLIENTS");
	}

	@Override
	public Fault apply(String kind, Random random) throws InterruptedException {
		List<RedisServer> primaries = this.cluster.primaries();
		RedisServer primary = primaries.get(random.nextInt(primaries.size()));
		boolean all = random.nextInt(10) < 3;
		int millis = switch (kind) {
			case "KILL-CLIENTS" -> 200 + random.nextInt(500);
			case "SHARD-PAUSE" -> 1000 + random.nextInt(4000);
			case "PAUSE" -> (int) NemesisSettings.LEASE.toMillis() + 500 + random.nextInt(1500);
			default -> 0;
		};
		NemesisSettings.HotKey hot = NemesisSettings.HOT_KEYS.get(random.nextInt(NemesisSettings.HOT_KEYS.size()));
		int node = random.nextInt(this.nodes.size());
		Fault fault = switch (kind) {
			case "KILL-CLIENTS" -> killClients(all ? primaries : List.of(primary), millis);
			case "SHARD-PAUSE" -> {
				primary.pause();
				Thread.sleep(millis);
				primary.resume();
				// Past the node timeout its replica may take over with the writes not
				// replicated yet.
				yield Fault.of(kind, -1, true, true, "primary " + primary.port() + " stopped for " + millis + " ms");
			}
			case "MIGRATE" -> {
				int slot = RedisCluster.slot(NemesisSettings.KEY_PREFIX + "{" + hot.name() + "}");
				RedisServer from = this.cluster.primaryForSlot(slot);
				RedisServer to = primaries.stream().filter((candidate) -> candidate != from).toList().get(0);
				this.cluster.moveSlot(slot, to);
				yield Fault.of(kind, -1, false, false,
						"slot " + slot + " of '" + hot.name() + "' from " + from.port() + " to " + to.port());
			}
			case "FAILOVER" -> {
				RedisServer replica = this.cluster.replicasOf(primary).get(0);
				this.cluster.failover(replica);
				yield Fault.of(kind, -1, true, false,
						"replica " + replica.port() + " took over from " + primary.port());
			}
			case "NODE-RESTART" -> {
				primary.restart();
				yield Fault.of(kind, -1, true, true, "primary " + primary.port() + " restarted without its data");
			}
			case "PAUSE" -> {
				int paused = NemesisPauses.holdingNode(this.control, this.nodes.size(), node);
				this.nodes.get(paused).pause();
				Thread.sleep(millis);
				this.nodes.get(paused).resume();
				yield Fault.of(kind, paused, true, false, "SIGSTOP for " + millis + " ms");
			}
			default -> throw new IllegalStateException("Unknown fault " + kind);
		};
		this.cluster.awaitHealthy(HEALTHY_TIMEOUT);
		// A fault lasts until the cluster is healthy again; a cut, until the cut.
		return fault.cuts() ? fault
				: Fault.of(fault.kind(), fault.node(), fault.lapsing(), fault.dataLoss(), fault.detail());
	}

	private Fault killClients(List<RedisServer> targets, int millis) throws InterruptedException {
		// Stopped first, the primaries queue the storm's commands; resumed, they run them
		// all, then the kill sent last, before the answers go out.
		targets.forEach(RedisServer::pause);
		this.control.command("INCR", NemesisSettings.STORM);
		Thread.sleep(millis);
		List<CompletableFuture<Object>> kills = new ArrayList<>();
		for (RedisServer target : targets) {
			kills.add(CompletableFuture.supplyAsync(() -> {
				try (RedisCli cli = target.cli()) {
					return cli.command("CLIENT", "KILL", "TYPE", "normal");
				}
			}));
		}
		Thread.sleep(100);
		targets.forEach(RedisServer::resume);
		List<Object> killed = kills.stream().map(CompletableFuture::join).toList();
		return Fault.of("KILL-CLIENTS", -1, false, false,
				"primaries " + targets.stream().map(RedisServer::port).toList() + " stopped " + millis
						+ " ms, then closed " + killed + " client connections");
	}

	@Override
	public void heal() {
		this.nodes.forEach(JavaProcess::resume);
		for (RedisServer server : this.cluster.nodes()) {
			server.resume();
			if (!server.isRunning()) {
				server.restart();
			}
		}
		this.cluster.awaitHealthy(HEALTHY_TIMEOUT);
	}

}
