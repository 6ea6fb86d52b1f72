package io.github.redislock.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redislock.faults.Nemesis.Fault;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One run of the nemesis test, the same for every kind of system: starts the node JVMs,
 * lets the {@link Nemesis} strike while they work, stops the faults, lets the system
 * settle and checks that it then serves every acquisition, stops the nodes, and has the
 * {@link NemesisChecker} judge what they saw. The seed and the duration of the faults
 * come from the system properties {@value #SEED_PROPERTY} and
 * {@value #DURATION_PROPERTY}.
 */
final class NemesisRun {

	static final String SEED_PROPERTY = "redislock.faults.seed";

	static final String DURATION_PROPERTY = "redislock.faults.duration";

	private static final int NODES = 3;

	private static final int HOT_THREADS = 4;

	/** Storm threads per node: with the hot threads, over 50 commands in flight. */
	private static final int STORM_THREADS = 48;

	/** How long the quiet phase is checked after it settled. */
	private static final Duration QUIET_CHECK = Duration.ofSeconds(4);

	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	private final RedisServer control;

	private final Path directory;

	private final Duration defaultDuration;

	NemesisRun(RedisServer control, Path directory, Duration defaultDuration) {
		this.control = control;
		this.directory = directory;
		this.defaultDuration = defaultDuration;
	}

	/**
	 * Runs the nodes and the nemesis and asserts that no promise broke.
	 * @param connection the arguments that tell node {@code i} how to reach the lock
	 * Redis
	 * @param faults the faults for the nodes, given the node JVMs and the control client
	 * @param lockServers the servers that hold locks once all is over, for leftovers
	 */
	void run(Function<Integer, List<String>> connection, Function<Nodes, Nemesis.Faults> faults,
			Supplier<List<RedisServer>> lockServers) throws Exception {
		long seed = Long.getLong(SEED_PROPERTY, System.nanoTime());
		Duration duration = Duration.parse(System.getProperty(DURATION_PROPERTY, this.defaultDuration.toString()));
		String reproduce = "seed " + seed + " (reproduce with -D" + SEED_PROPERTY + "=" + seed + ")";
		System.out.println("Nemesis run: " + reproduce + ", faults for " + duration);
		List<JavaProcess> nodes = new ArrayList<>();
		List<Path> histories = new ArrayList<>();
		try (RedisCli cli = this.control.cli(Duration.ofSeconds(30))) {
			long started = System.currentTimeMillis();
			for (int i = 0; i < NODES; i++) {
				Path history = this.directory.resolve(Nemesis.nodeName(i) + ".history");
				histories.add(history);
				List<String> args = new ArrayList<>(connection.apply(i));
				args.addAll(List.of("name=" + Nemesis.nodeName(i),
						"control=" + this.control.host() + ":" + this.control.port(), "seed=" + seed,
						"hot=" + HOT_THREADS, "storm=" + STORM_THREADS, "history=" + history));
				nodes.add(JavaProcess.start(NemesisNode.class, args.toArray(String[]::new)));
			}
			for (JavaProcess node : nodes) {
				node.awaitOutput("READY", START_TIMEOUT);
			}
			System.out.println("Nodes ready in " + (System.currentTimeMillis() - started) + " ms");
			cli.set(NemesisSettings.PHASE, "faulty");
			for (int i = 0; i < NODES; i++) {
				cli.command("RPUSH", NemesisSettings.START, "go");
			}
			List<Fault> applied = new Nemesis(seed, faults.apply(new Nodes(nodes, cli))).run(duration);
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
			List<String> leftovers = NemesisLeftovers.find(lockServers.get(), Duration.ofSeconds(2));
			if (!leftovers.isEmpty()) {
				violations.put("left-locked",
						List.of("still in Redis after every node released and closed: " + leftovers));
			}
			NemesisChecker checker = new NemesisChecker(NemesisHistory.read(histories), FencedResource.log(cli),
					applied, healed);
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
		}
	}

	/**
	 * The node JVMs of a run and a client of the control Redis, for the faults.
	 *
	 * @param processes the node JVMs, in the order of their names
	 * @param control a client of the control Redis
	 */
	record Nodes(List<JavaProcess> processes, RedisCli control) {
	}

}
