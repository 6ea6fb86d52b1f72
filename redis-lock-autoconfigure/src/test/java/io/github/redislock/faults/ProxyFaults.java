package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import io.github.redislock.faults.Nemesis.Fault;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Faults of nodes that reach a single Redis through a {@link FaultProxy} each:
 * <ul>
 * <li>{@code RESET} and {@code END}: the proxy holds Redis's replies while the node's
 * storm threads send at once, so that Redis runs many commands whose answers are then
 * lost as the connections are reset or closed cleanly; Lettuce sends them again. Twice a
 * round, sometimes on every node at once;</li>
 * <li>{@code LATENCY}: every chunk waits tens of milliseconds each way;</li>
 * <li>{@code BLACKHOLE}: the node is cut off, up to past its leases;</li>
 * <li>{@code PAUSE}: the node's JVM is stopped (SIGSTOP) past its leases, preferably one
 * inside a critical section;</li>
 * <li>{@code RESTART}: Redis stops (or is killed) and starts again, without its
 * data.</li>
 * </ul>
 */
final class ProxyFaults implements Nemesis.Faults {

	private final List<FaultProxy> proxies;

	private final List<JavaProcess> nodes;

	private final RedisServer redis;

	private final RedisCli control;

	ProxyFaults(List<FaultProxy> proxies, List<JavaProcess> nodes, RedisServer redis, RedisCli control) {
		this.proxies = proxies;
		this.nodes = nodes;
		this.redis = redis;
		this.control = control;
	}

	@Override
	public List<String> round() {
		return List.of("RESET", "END", "LATENCY", "BLACKHOLE", "PAUSE", "RESTART", "RESET", "END");
	}

	@Override
	public Fault apply(String kind, Random random) throws InterruptedException {
		int node = random.nextInt(this.nodes.size());
		boolean all = random.nextInt(10) < 3;
		int millis = switch (kind) {
			case "RESET", "END" -> 200 + random.nextInt(1000);
			case "LATENCY" -> 1500 + random.nextInt(2500);
			case "BLACKHOLE" -> 1000 + random.nextInt(4500);
			case "PAUSE" -> (int) NemesisSettings.LEASE.toMillis() + 500 + random.nextInt(1500);
			default -> 0;
		};
		int latency = 20 + random.nextInt(180);
		boolean kill = random.nextBoolean();
		return switch (kind) {
			case "RESET", "END" -> cut(kind, all ? -1 : node, millis);
			case "LATENCY" -> {
				this.proxies.get(node).delay(Duration.ofMillis(latency));
				Thread.sleep(millis);
				this.proxies.get(node).pass();
				yield Fault.of(kind, node, true, false, latency + " ms each way for " + millis + " ms");
			}
			case "BLACKHOLE" -> {
				this.proxies.get(node).blackhole();
				Thread.sleep(millis);
				this.proxies.get(node).pass();
				yield Fault.of(kind, node, true, false, "for " + millis + " ms");
			}
			case "PAUSE" -> {
				int paused = NemesisPauses.holdingNode(this.control, this.nodes.size(), node);
				this.nodes.get(paused).pause();
				Thread.sleep(millis);
				this.nodes.get(paused).resume();
				yield Fault.of(kind, paused, true, false, "SIGSTOP for " + millis + " ms");
			}
			case "RESTART" -> {
				if (kill) {
					this.redis.kill();
				}
				this.redis.restart();
				yield Fault.of(kind, -1, true, true, kill ? "killed and started" : "stopped and started");
			}
			default -> throw new IllegalStateException("Unknown fault " + kind);
		};
	}

	private Fault cut(String kind, int node, int millis) throws InterruptedException {
		List<FaultProxy> targets = (node < 0) ? this.proxies : List.of(this.proxies.get(node));
		targets.forEach(FaultProxy::holdReplies);
		this.control.command("INCR", NemesisSettings.STORM);
		Thread.sleep(millis);
		int connections = targets.stream().mapToInt(FaultProxy::connectionCount).sum();
		targets.forEach(kind.equals("RESET") ? FaultProxy::closeConnections : FaultProxy::endConnections);
		targets.forEach(FaultProxy::pass);
		return Fault.of(kind, node, false, false, "replies held " + millis + " ms, then " + connections
				+ " connections " + (kind.equals("RESET") ? "reset" : "closed"));
	}

	@Override
	public void heal() {
		this.proxies.forEach(FaultProxy::pass);
		this.nodes.forEach(JavaProcess::resume);
		if (!this.redis.isRunning()) {
			this.redis.restart();
		}
	}

}
