package io.github.redislock.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 * A randomized fault test of what a holder is told when its lock is lost: three JVMs of
 * six threads each lock a few hot names with every kind (exclusive, fair, read, write),
 * lease (the watchdog's, a fixed one) and caller (blocking, the engine's asynchronous
 * acquisition, the reactive template), 0 to 1 ms at a time, while {@link LockLossFaults}
 * delete lock keys, flush Redis, restart it without its data, put it to sleep and reset
 * the nodes' connections. Every grant is Redis's, so the test guards what an in-JVM
 * hand-over once broke: fencing tokens in grant order and never ahead of Redis's clock,
 * no two conflicting holders at once unless the earlier is told of its loss and a fault
 * (or its lease running out) explains it, no starved waiter once faults stop, nothing
 * left held in Redis or in an engine at the end. {@link LockLossChecker} judges the
 * history.
 * <p>
 * The schedule comes from a seed, printed at the start and on failure; run again with
 * {@code -Dredislock.faults.seed=<seed>} for the same faults (their timing against the
 * nodes' work still varies). The build applies faults for 25 seconds (about 50 seconds
 * with start-up, the quiet phase and the checks);
 * {@code -Dredislock.faults.duration=PT30M} applies them for 30 minutes:
 * {@code ./mvnw -B verify -pl redis-lock-autoconfigure -Dtest=LockLossNemesisTests -Dsurefire.failIfNoSpecifiedTests=false -Dredislock.faults.duration=PT30M}.
 * {@code -Dredislock.faults.keep=<directory>} keeps the nodes' histories (one line per
 * acquisition) there.
 */
@RedisTest
class LockLossNemesisTests {

	/** Names a directory to keep the nodes' histories in. */
	static final String KEEP_PROPERTY = "redislock.faults.keep";

	private static final int NODES = 3;

	private static final int THREADS = 6;

	private static final Duration DEFAULT_DURATION = Duration.ofSeconds(25);

	/** How long the quiet phase is checked once it settled. */
	private static final Duration QUIET_CHECK = Duration.ofSeconds(8);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	@Test
	void holdersAreToldOfEveryLossAndTokensFollowRedisGrants(RedisServer control, @TempDir Path directory)
			throws Exception {
		long seed = Long.getLong(NemesisRun.SEED_PROPERTY, System.nanoTime());
		Duration duration = Duration
			.parse(System.getProperty(NemesisRun.DURATION_PROPERTY, DEFAULT_DURATION.toString()));
		String reproduce = "seed " + seed + " (reproduce with -D" + NemesisRun.SEED_PROPERTY + "=" + seed + ")";
		System.out.println("Lock-loss nemesis run: " + reproduce + ", faults for " + duration);
		List<FaultProxy> proxies = new ArrayList<>();
		List<JavaProcess> nodes = new ArrayList<>();
		List<Path> histories = new ArrayList<>();
		try (RedisServer redis = startLockRedis(); RedisCli cli = control.cli(Duration.ofSeconds(30))) {
			for (int i = 0; i < NODES; i++) {
				FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
				proxies.add(proxy);
				Path history = directory.resolve(Nemesis.nodeName(i) + ".history");
				histories.add(history);
				nodes.add(JavaProcess.start(LockLossNode.class, "name=" + Nemesis.nodeName(i),
						"lock=" + proxy.host() + ":" + proxy.port(), "direct=" + redis.host() + ":" + redis.port(),
						"control=" + control.host() + ":" + control.port(), "seed=" + seed, "threads=" + THREADS,
						"history=" + history));
			}
			for (JavaProcess node : nodes) {
				node.awaitOutput("READY", START_TIMEOUT);
			}
			cli.set(NemesisSettings.PHASE, "faulty");
			for (int i = 0; i < NODES; i++) {
				cli.command("RPUSH", NemesisSettings.START, "go");
			}
			LockLossFaults faults = new LockLossFaults(redis, new ProxyFaults(proxies, nodes, redis, cli));
			List<Fault> applied = new Nemesis(seed, faults).run(duration);
			long healed = System.currentTimeMillis();
			cli.set(NemesisSettings.PHASE, "quiet");
			Thread.sleep(LockLossSettings.SETTLE.plus(QUIET_CHECK).toMillis());
			cli.set(NemesisSettings.STOP, "1");
			Map<String, List<String>> violations = new LinkedHashMap<>();
			for (JavaProcess node : nodes) {
				node.awaitOutput("IDLE", START_TIMEOUT);
				String idle = idleLine(node.output());
				if (!idle.startsWith("IDLE held=0 waiters=0 ")) {
					violations.computeIfAbsent("engine-not-idle", (rule) -> new ArrayList<>())
						.add(node.pid() + " once its workers returned: " + idle);
				}
			}
			List<String> leftovers = NemesisLeftovers.find(List.of(redis), Duration.ofSeconds(5));
			if (!leftovers.isEmpty()) {
				violations.put("left-locked", List.of("still held in Redis after every worker released, "
						+ "with the engines still open: " + leftovers));
			}
			for (int i = 0; i < NODES; i++) {
				cli.command("RPUSH", LockLossSettings.EXIT, "go");
			}
			for (JavaProcess node : nodes) {
				int exit = node.waitFor(START_TIMEOUT);
				if (exit != 0) {
					violations.computeIfAbsent("node", (rule) -> new ArrayList<>())
						.add(node + " exited with " + exit + ": " + node.output());
				}
			}
			keepHistories(histories);
			LockLossChecker checker = new LockLossChecker(LockLossHistory.read(histories), applied, healed);
			violations.putAll(checker.check());
			String summary = checker.summary();
			System.out.println(summary);
			violations.forEach((rule, list) -> list
				.forEach((evidence) -> System.out.println("VIOLATION " + rule + ": " + evidence)));
			assertThat(violations)
				.as(() -> "Lock-loss nemesis run with " + reproduce + " found violations:"
						+ NemesisChecker.describe(violations) + System.lineSeparator() + summary)
				.isEmpty();
		}
		finally {
			nodes.forEach(JavaProcess::close);
			proxies.forEach(FaultProxy::close);
		}
	}

	/**
	 * The lock Redis, without persistence, with {@code DEBUG} allowed from the loopback
	 * address (Redis 7 refuses it by default; Redis 6.2 knows no such setting).
	 */
	private static RedisServer startLockRedis() {
		try {
			return RedisServer.start("--enable-debug-command", "local");
		}
		catch (IllegalStateException ex) {
			return RedisServer.start();
		}
	}

	/**
	 * Copies the nodes' histories to the directory named by {@value #KEEP_PROPERTY}, if
	 * set, to study a run after the temporary directory is gone.
	 */
	private static void keepHistories(List<Path> histories) throws IOException {
		String keep = System.getProperty(KEEP_PROPERTY);
		if (keep != null) {
			Path target = Files.createDirectories(Path.of(keep));
			for (Path history : histories) {
				Files.copy(history, target.resolve(history.getFileName()), StandardCopyOption.REPLACE_EXISTING);
			}
		}
	}

	private static String idleLine(String output) {
		return output.lines().filter((line) -> line.startsWith("IDLE")).findFirst().orElse("no IDLE line");
	}

}
