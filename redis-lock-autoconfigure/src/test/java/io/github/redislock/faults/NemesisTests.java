package io.github.redislock.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.redislock.faults.Nemesis.Fault;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A randomized fault test in the spirit of Jepsen: three JVMs with hot-key and storm
 * threads lock a few names of every kind and work on a fenced resource, while a
 * {@link Nemesis} resets and closes their connections with many commands in flight, adds
 * latency, cuts a node off, pauses a node's JVM past its leases and restarts Redis; then
 * the faults stop and every acquisition must succeed again. A {@link NemesisChecker}
 * judges the history.
 * <p>
 * The schedule comes from a seed, printed on failure; run again with
 * {@code -Dredislock.faults.seed=<seed>} for the same schedule (timing still varies). The
 * build runs faults for about half a minute; a long run takes
 * {@code -Dredislock.faults.duration=PT30M}, for example
 * {@code ./mvnw -B -pl redis-lock-autoconfigure -am verify -Dtest=NemesisTests -Dsurefire.failIfNoSpecifiedTests=false -Dredislock.faults.duration=PT30M}.
 */
@RedisTest
class NemesisTests {

	static final String SEED_PROPERTY = "redislock.faults.seed";

	static final String DURATION_PROPERTY = "redislock.faults.duration";

	private static final Duration DEFAULT_DURATION = Duration.ofSeconds(20);

	private static final int NODES = 3;

	private static final int HOT_THREADS = 4;

	/** Storm threads per node: with the hot threads, over 50 commands in flight. */
	private static final int STORM_THREADS = 48;

	/** How long the quiet phase is checked after it settled. */
	private static final Duration QUIET_CHECK = Duration.ofSeconds(4);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	@Test
	void locksKeepTheirPromisesWhileTheNemesisStrikes(@RedisTest.Dedicated RedisServer redis, RedisServer control,
			@TempDir Path directory) throws Exception {
		long seed = Long.getLong(SEED_PROPERTY, System.nanoTime());
		Duration duration = Duration.parse(System.getProperty(DURATION_PROPERTY, DEFAULT_DURATION.toString()));
		String reproduce = "seed " + seed + " (reproduce with -D" + SEED_PROPERTY + "=" + seed + ")";
		System.out.println("Nemesis run: " + reproduce + ", faults for " + duration);
		List<FaultProxy> proxies = new ArrayList<>();
		List<JavaProcess> nodes = new ArrayList<>();
		List<Path> histories = new ArrayList<>();
		try (RedisCli cli = control.cli(Duration.ofSeconds(30))) {
			for (int i = 0; i < NODES; i++) {
				FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
				proxies.add(proxy);
				Path history = directory.resolve(Nemesis.nodeName(i) + ".history");
				histories.add(history);
				nodes.add(JavaProcess.start(NemesisNode.class, "name=" + Nemesis.nodeName(i),
						"lock=" + proxy.host() + ":" + proxy.port(), "direct=" + redis.host() + ":" + redis.port(),
						"control=" + control.host() + ":" + control.port(), "seed=" + seed, "hot=" + HOT_THREADS,
						"storm=" + STORM_THREADS, "history=" + history));
			}
			long started = System.currentTimeMillis();
			for (JavaProcess node : nodes) {
				node.awaitOutput("READY", START_TIMEOUT);
			}
			System.out.println("Nodes ready in " + (System.currentTimeMillis() - started) + " ms");
			cli.set(NemesisSettings.PHASE, "faulty");
			for (int i = 0; i < NODES; i++) {
				cli.command("RPUSH", NemesisSettings.START, "go");
			}
			Nemesis nemesis = new Nemesis(seed, proxies, nodes, redis, cli);
			List<Fault> faults = nemesis.run(duration);
			long healed = System.currentTimeMillis();
			cli.set(NemesisSettings.PHASE, "quiet");
			// The schedule's last phase: no fault while the system settles and is
			// checked.
			Thread.sleep(NemesisSettings.SETTLE.plus(QUIET_CHECK).toMillis());
			cli.set(NemesisSettings.STOP, "1");
			Map<String, List<String>> violations = new LinkedHashMap<>();
			for (JavaProcess node : nodes) {
				int exit = node.waitFor(START_TIMEOUT);
				if (exit != 0) {
					violations.computeIfAbsent("node", (rule) -> new ArrayList<>())
						.add(node + " exited with " + exit + ": " + node.output());
				}
			}
			List<String> leftovers = NemesisLeftovers.find(redis, Duration.ofSeconds(2));
			if (!leftovers.isEmpty()) {
				violations.put("left-locked",
						List.of("still in Redis after every node released and closed: " + leftovers));
			}
			NemesisChecker checker = new NemesisChecker(NemesisHistory.read(histories), FencedResource.log(cli), faults,
					healed);
			violations.putAll(checker.check());
			String summary = checker.summary();
			System.out.println(summary);
			violations.forEach((rule, list) -> list
				.forEach((evidence) -> System.out.println("VIOLATION " + rule + ": " + evidence)));
			assertThat(violations)
				.as(() -> "Nemesis run with " + reproduce + " found violations:" + NemesisChecker.describe(violations)
						+ System.lineSeparator() + summary)
				.isEmpty();
		}
		finally {
			nodes.forEach(JavaProcess::close);
			proxies.forEach(FaultProxy::close);
		}
	}

}
