package io.github.redislock.integration;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration's leader election over {@link DistributedLockRegistry}, across two
 * JVMs ({@link LeaderNode}s) on a real Redis: one leader at a time, a successor elected
 * within the watchdog's lease of a killed leader, and a leader paused past its lease told
 * of its loss once resumed. While it believes it leads, each node writes to a fenced
 * counter with its token; {@link LeaderHistory} checks that the writes the fence let
 * through never overlap.
 */
@RedisTest
class LeaderElectionTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration RENEW_INTERVAL = Duration.ofSeconds(1);

	private static final Duration HEART_BEAT = Duration.ofMillis(200);

	/**
	 * What a successor needs beyond the lease: a heart beat, a round trip, a loaded
	 * machine.
	 */
	private static final Duration TAKEOVER_SLACK = Duration.ofSeconds(2);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	@Test
	void successorOfAKilledLeaderIsElectedWithinTheLease(RedisServer server) {
		String role = "leader-killed";
		try (JavaProcess a = start(server, role, "a"); JavaProcess b = start(server, role, "b")) {
			Map<String, JavaProcess> nodes = nodes(a, b);
			String leader = awaitSingleLeader(nodes);
			String follower = leader.equals("a") ? "b" : "a";
			await().atMost(Duration.ofSeconds(5)).until(() -> history(nodes).acceptedWrites(leader) >= 3);
			long killedAt = System.nanoTime();
			nodes.get(leader).kill();
			nodes.get(follower).awaitOutput("GRANTED", LEASE.plus(TAKEOVER_SLACK).plusSeconds(5));
			Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
			System.out.println("Leader " + leader + " killed, " + follower + " elected after " + takeover.toMillis()
					+ " ms (lease " + LEASE.toMillis() + " ms)");
			assertThat(takeover).isLessThan(LEASE.plus(TAKEOVER_SLACK));
			await().atMost(Duration.ofSeconds(5)).until(() -> history(nodes).acceptedWrites(follower) >= 3);
			List<LeaderHistory.Write> writes = history(nodes).checkNoOverlap();
			assertThat(writes.get(writes.size() - 1).node()).isEqualTo(follower);
		}
	}

	@Test
	void leaderPausedPastItsLeaseIsReplacedAndRevokesOnceResumed(RedisServer server) {
		String role = "leader-paused";
		try (JavaProcess a = start(server, role, "a"); JavaProcess b = start(server, role, "b")) {
			Map<String, JavaProcess> nodes = nodes(a, b);
			String leader = awaitSingleLeader(nodes);
			String follower = leader.equals("a") ? "b" : "a";
			JavaProcess paused = nodes.get(leader);
			await().atMost(Duration.ofSeconds(5)).until(() -> history(nodes).acceptedWrites(leader) >= 3);
			paused.pause();
			nodes.get(follower).awaitOutput("GRANTED", LEASE.plus(TAKEOVER_SLACK).plusSeconds(5));
			// The successor wrote before the paused leader resumes, so the fence knows
			// the newer token when the stale leader's next write arrives
			await().atMost(Duration.ofSeconds(5)).until(() -> history(nodes).acceptedWrites(follower) >= 1);
			paused.resume();
			paused.awaitOutput("REVOKED", Duration.ofSeconds(10));
			assertThat(history(nodes).leaders()).containsExactly(follower);
			await().atMost(Duration.ofSeconds(5)).until(() -> history(nodes).acceptedWrites(follower) >= 3);
			// Between SIGCONT and REVOKED it may still believe it leads and write, or its
			// watchdog may tell it first (its lease ended while it was paused), whichever
			// thread runs first: either way the fence accepts none of its writes after
			// its
			// successor's, which the checker would see as a token going down
			long refused = paused.output().lines().filter((line) -> line.startsWith("STALE ")).count();
			System.out.println("Leader " + leader + " paused past its lease, " + follower
					+ " elected; once resumed, the fence refused " + refused + " of its writes before it revoked");
			history(nodes).checkNoOverlap();
			// The revoked leader runs again: the initiator never unlocked its lost hold,
			// which must not keep it from a later election
			long acceptedBeforeReelection = history(nodes).acceptedWrites(leader);
			nodes.get(follower).kill();
			await().atMost(LEASE.plus(TAKEOVER_SLACK).plusSeconds(5))
				.until(() -> history(nodes).leaders().contains(leader));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> history(nodes).acceptedWrites(leader) >= acceptedBeforeReelection + 3);
			List<LeaderHistory.Write> writes = history(nodes).checkNoOverlap();
			assertThat(writes.get(writes.size() - 1).node()).isEqualTo(leader);
		}
	}

	/** Wait for one node to be elected, and for the other to stay follower a while. */
	private String awaitSingleLeader(Map<String, JavaProcess> nodes) {
		nodes.values().forEach((node) -> node.awaitOutput("STARTED", START_TIMEOUT));
		await().atMost(START_TIMEOUT).until(() -> history(nodes).leaders().size() == 1);
		await().during(Duration.ofSeconds(1))
			.atMost(Duration.ofSeconds(3))
			.until(() -> history(nodes).leaders().size() == 1);
		return history(nodes).leaders().get(0);
	}

	private static JavaProcess start(RedisServer server, String role, String node) {
		return JavaProcess.start(LeaderNode.class, server.host(), Integer.toString(server.port()), role, node,
				role + ":writes", Long.toString(LEASE.toMillis()), Long.toString(RENEW_INTERVAL.toMillis()),
				Long.toString(HEART_BEAT.toMillis()));
	}

	private static Map<String, JavaProcess> nodes(JavaProcess a, JavaProcess b) {
		Map<String, JavaProcess> nodes = new LinkedHashMap<>();
		nodes.put("a", a);
		nodes.put("b", b);
		return nodes;
	}

	private static LeaderHistory history(Map<String, JavaProcess> nodes) {
		Map<String, String> outputs = new LinkedHashMap<>();
		nodes.forEach((name, process) -> outputs.put(name, process.output()));
		return new LeaderHistory(outputs);
	}

}
