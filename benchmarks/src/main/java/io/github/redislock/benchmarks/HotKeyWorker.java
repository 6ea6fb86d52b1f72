package io.github.redislock.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import io.github.redislock.test.RedisCli;

/**
 * The second JVM of the two-JVM hot-key scenario: opens its own lock client, says
 * {@value #READY}, waits for the start time in Redis, runs its threads (reactive chains
 * for a reactive implementation) and writes what they did to a file.
 * <p>
 * Arguments: threads or chains, outcome file, {@linkplain LockClient.Kind kind} of lock,
 * then those of a {@link ScenarioContext}.
 */
public final class HotKeyWorker {

	static final String READY = "WORKER READY";

	private HotKeyWorker() {
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		int threads = Integer.parseInt(arguments.get(0));
		Path outcome = Path.of(arguments.get(1));
		LockClient.Kind kind = LockClient.Kind.valueOf(arguments.get(2));
		ScenarioContext context = ScenarioContext.fromArguments(arguments.subList(3, arguments.size()));
		try (Profiling profiling = Profiling.startIfEnabled(context, "hot-key-worker");
				LockClient client = context.openClient();
				Counter counter = new Counter(context.host(), context.port());
				RedisCli cli = context.cli()) {
			System.out.println(READY);
			String startAt;
			while ((startAt = cli.get(HotKeyScenario.START_KEY)) == null) {
				Thread.sleep(2);
			}
			BenchmarkSettings settings = context.settings();
			HotKeyRun run = new HotKeyRun(client, kind, counter, threads, Long.parseLong(startAt),
					settings.hotKeyWarmup(), settings.duration())
				.start();
			long cpu = run.measure(() -> {
			}, () -> {
			});
			run.join(cpu).writeTo(outcome);
		}
		System.exit(0);
	}

}
