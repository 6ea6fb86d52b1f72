package io.github.redislock.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import io.github.redislock.test.RedisCli;

/**
 * The second JVM of the permits scenario: opens its own lock client and checker, says
 * {@value #READY}, waits for the start time in Redis, runs its threads and writes what
 * they did to a file.
 * <p>
 * Arguments: threads, outcome file, then those of a {@link ScenarioContext}.
 */
public final class PermitsWorker {

	static final String READY = "PERMITS WORKER READY";

	private PermitsWorker() {
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		int threads = Integer.parseInt(arguments.get(0));
		Path outcome = Path.of(arguments.get(1));
		ScenarioContext context = ScenarioContext.fromArguments(arguments.subList(2, arguments.size()));
		try (Profiling profiling = Profiling.startIfEnabled(context, "permits-worker");
				LockClient client = context.openClient();
				Holders holders = new Holders(context.host(), context.port());
				RedisCli cli = context.cli()) {
			System.out.println(READY);
			String startAt;
			while ((startAt = cli.get(HotKeyScenario.START_KEY)) == null) {
				Thread.sleep(2);
			}
			BenchmarkSettings settings = context.settings();
			PermitsRun run = new PermitsRun(client, holders, threads, Long.parseLong(startAt), settings.hotKeyWarmup(),
					settings.duration())
				.start();
			long cpu = run.measure(() -> {
			}, () -> {
			});
			run.join(cpu).writeTo(outcome);
		}
		System.exit(0);
	}

}
