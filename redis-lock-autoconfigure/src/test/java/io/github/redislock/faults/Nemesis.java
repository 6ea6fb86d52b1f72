package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Applies faults to the nodes of the nemesis test and their single Redis, one after
 * another from a schedule drawn from a seed: every kind once per round (connection cuts
 * twice) in a shuffled order, with random targets, durations and gaps; at least one
 * round, then rounds until the duration has passed. Each node reaches Redis through a
 * {@link FaultProxy} of its own. Records when each fault began and ended.
 * <ul>
 * <li>{@code RESET} and {@code END}: the proxy holds Redis's replies while the node's
 * storm threads send at once, so that Redis runs many commands whose answers are then
 * lost as the connections are reset or closed cleanly; Lettuce sends them again.</li>
 * <li>{@code LATENCY}: every chunk waits tens of milliseconds each way.</li>
 * <li>{@code BLACKHOLE}: the node is cut off, up to past its leases.</li>
 * <li>{@code PAUSE}: the node's JVM is stopped (SIGSTOP) past its leases, preferably one
 * inside a critical section.</li>
 * <li>{@code RESTART}: Redis stops (or is killed) and starts again, without its
 * data.</li>
 * </ul>
 */
final class Nemesis {

	static final List<String> KINDS = List.of("RESET", "END", "LATENCY", "BLACKHOLE", "PAUSE", "RESTART");

	/** Faults after which a lease may run out, or its lock vanish, with no bug. */
	static final List<String> LAPSING = List.of("LATENCY", "BLACKHOLE", "PAUSE", "RESTART");

	/** Faults that lose Redis's data: a lock may be granted twice across them. */
	static final List<String> DATA_LOSS = List.of("RESTART");

	private final Random random;

	private final List<FaultProxy> proxies;

	private final List<JavaProcess> nodes;

	private final RedisServer redis;

	private final RedisCli control;

	private final List<Fault> faults = new ArrayList<>();

	Nemesis(long seed, List<FaultProxy> proxies, List<JavaProcess> nodes, RedisServer redis, RedisCli control) {
		this.random = new Random(seed);
		this.proxies = proxies;
		this.nodes = nodes;
		this.redis = redis;
		this.control = control;
	}

	/**
	 * Applies faults until the duration has passed, then heals everything.
	 * @param duration how long to go on
	 * @return the faults applied, in order
	 */
	List<Fault> run(Duration duration) throws InterruptedException {
		long deadline = System.currentTimeMillis() + duration.toMillis();
		List<String> deck = new ArrayList<>();
		boolean firstRound = true;
		try {
			// At least one whole round, so that even a short run has every kind of fault.
			while (System.currentTimeMillis() < deadline || (firstRound && !deck.isEmpty())) {
				if (deck.isEmpty()) {
					firstRound = this.faults.isEmpty();
					deck.addAll(KINDS);
					// Connection cuts twice a round: they find most of the bugs of their
					// family.
					deck.addAll(List.of("RESET", "END"));
					Collections.shuffle(deck, this.random);
				}
				Thread.sleep(300 + this.random.nextInt(1200));
				apply(deck.remove(0));
			}
		}
		finally {
			heal();
		}
		return this.faults;
	}

	private void apply(String kind) throws InterruptedException {
		int node = this.random.nextInt(this.nodes.size());
		boolean all = this.random.nextInt(10) < 3;
		int millis = switch (kind) {
			case "RESET", "END" -> 200 + this.random.nextInt(1000);
			case "LATENCY" -> 1500 + this.random.nextInt(2500);
			case "BLACKHOLE" -> 1000 + this.random.nextInt(4500);
			case "PAUSE" -> (int) NemesisSettings.LEASE.toMillis() + 500 + this.random.nextInt(1500);
			default -> 0;
		};
		int latency = 20 + this.random.nextInt(180);
		boolean kill = this.random.nextBoolean();
		long start = System.currentTimeMillis();
		String detail;
		switch (kind) {
			case "RESET", "END" -> {
				List<FaultProxy> targets = all ? this.proxies : List.of(this.proxies.get(node));
				targets.forEach(FaultProxy::holdReplies);
				this.control.command("INCR", NemesisSettings.STORM);
				Thread.sleep(millis);
				int connections = targets.stream().mapToInt(FaultProxy::connectionCount).sum();
				targets.forEach(kind.equals("RESET") ? FaultProxy::closeConnections : FaultProxy::endConnections);
				targets.forEach(FaultProxy::pass);
				node = all ? -1 : node;
				detail = "replies held " + millis + " ms, then " + connections + " connections "
						+ (kind.equals("RESET") ? "reset" : "closed");
			}
			case "LATENCY" -> {
				this.proxies.get(node).delay(Duration.ofMillis(latency));
				Thread.sleep(millis);
				this.proxies.get(node).pass();
				detail = latency + " ms each way for " + millis + " ms";
			}
			case "BLACKHOLE" -> {
				this.proxies.get(node).blackhole();
				Thread.sleep(millis);
				this.proxies.get(node).pass();
				detail = "for " + millis + " ms";
			}
			case "PAUSE" -> {
				node = holdingNode(node);
				this.nodes.get(node).pause();
				Thread.sleep(millis);
				this.nodes.get(node).resume();
				detail = "SIGSTOP for " + millis + " ms";
			}
			case "RESTART" -> {
				if (kill) {
					this.redis.kill();
				}
				this.redis.restart();
				node = -1;
				detail = kill ? "killed and started" : "stopped and started";
			}
			default -> throw new IllegalStateException("Unknown fault " + kind);
		}
		this.faults.add(new Fault(kind, node, start, System.currentTimeMillis(), detail));
	}

	/**
	 * A node with a thread inside a critical section now, so that the pause catches a
	 * holder; the drawn node when none is.
	 */
	private int holdingNode(int drawn) {
		for (NemesisSettings.HotKey key : NemesisSettings.HOT_KEYS) {
			List<?> inside = (List<?>) this.control.command("HKEYS", "fenced:{" + key.name() + "}:inside");
			for (Object holdId : inside) {
				int node = Integer.parseInt(((String) holdId).substring(1, ((String) holdId).indexOf('-'))) - 1;
				if (node >= 0 && node < this.nodes.size()) {
					return node;
				}
			}
		}
		return drawn;
	}

	/** Ends every fault: proxies pass, nodes run, Redis is up. */
	void heal() {
		this.proxies.forEach(FaultProxy::pass);
		this.nodes.forEach(JavaProcess::resume);
		if (!this.redis.isRunning()) {
			this.redis.restart();
		}
	}

	/** Name of the node at an index, as the nodes call themselves. */
	static String nodeName(int index) {
		return "n" + (index + 1);
	}

	/**
	 * A fault as applied.
	 *
	 * @param kind one of {@link #KINDS}
	 * @param node the index of the node it hit, or -1 for all (Redis itself)
	 * @param startMillis when it began
	 * @param endMillis when it was healed
	 * @param detail what exactly was done
	 */
	record Fault(String kind, int node, long startMillis, long endMillis, String detail) {

		boolean hits(String nodeName) {
			return this.node < 0 || nodeName(this.node).equals(nodeName);
		}

		/** Whether the fault, extended by some time after it, overlaps the interval. */
		boolean overlaps(long fromMillis, long toMillis, long afterMillis) {
			return this.startMillis <= toMillis && this.endMillis + afterMillis >= fromMillis;
		}

		@Override
		public String toString() {
			return this.kind + " " + ((this.node < 0) ? "all" : nodeName(this.node)) + " [" + this.startMillis + " -> "
					+ this.endMillis + "] " + this.detail;
		}

	}

}
