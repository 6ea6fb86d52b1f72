package io.github.redislock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;

/**
 * Threads of two JVMs, {@code bench.hotKeyThreads} in each, share
 * {@value PermitsRun#LIMIT} permits of one name (see {@link PermitsRun}): throughput,
 * waits, and the most holders the shared {@link Holders} checker ever counted, which must
 * not exceed the limit. This process runs half of the threads and a {@link PermitsWorker}
 * the other half; they start at a time this process publishes in Redis once the worker is
 * ready.
 */
final class PermitsScenario {

	private static final Duration WORKER_START_TIMEOUT = Duration.ofSeconds(60);

	private PermitsScenario() {
	}

	/**
	 * Run the permits.
	 * @throws IllegalStateException if the checker counted more holders than the limit at
	 * any time, warm-up included: the implementation broke its promise, and its row says
	 * so in place of figures
	 */
	static Figures run(ScenarioContext context) throws Exception {
		BenchmarkSettings settings = context.settings();
		int threads = settings.hotKeyThreads();
		Path workerOutcome = Files.createTempFile("permits-worker", ".bin");
		try (RedisCli cli = context.cli();
				LockClient client = context.openClient();
				Holders holders = new Holders(context.host(), context.port());
				JavaProcess worker = startWorker(context, threads, workerOutcome)) {
			cli.set(Holders.KEY, "0");
			long startAt = System.currentTimeMillis() + 300;
			cli.set(HotKeyScenario.START_KEY, Long.toString(startAt));
			PermitsRun run = new PermitsRun(client, holders, threads, startAt, settings.hotKeyWarmup(),
					settings.duration())
				.start();
			Map<String, Double> clientShares = HotKeyScenario.probe(context, cli, run.measureFromNanos(), Holders.KEY);
			RedisActivity redis = new RedisActivity(cli);
			long cpu = run.measure(redis::start, redis::stop);
			List<PermitsRun.Outcome> outcomes = new ArrayList<>(List.of(run.join(cpu)));
			int exit = worker.waitFor(settings.hotKeyWarmup().plus(settings.duration()).plus(WORKER_START_TIMEOUT));
			if (exit != 0) {
				throw new IllegalStateException("The second JVM failed: " + Failures.fromOutput(worker.output()));
			}
			outcomes.add(PermitsRun.Outcome.readFrom(workerOutcome));
			long peak = outcomes.stream().mapToLong(PermitsRun.Outcome::peakHolders).max().orElse(0);
			if (peak > PermitsRun.LIMIT) {
				throw new IllegalStateException("The checker counted " + peak + " holders at once, more than the "
						+ PermitsRun.LIMIT + " permits allow: the implementation let in more holders than its limit");
			}
			Figures figures = figures(outcomes, redis.commands(), settings.duration());
			CommandCounts.writeShares(clientShares, figures);
			return figures.put("redisCpuMicros", redis.cpuNanos() / 1e3);
		}
		finally {
			Files.deleteIfExists(workerOutcome);
		}
	}

	private static JavaProcess startWorker(ScenarioContext context, int threads, Path outcome) {
		try (RedisCli cli = context.cli()) {
			cli.command("DEL", HotKeyScenario.START_KEY);
		}
		List<String> arguments = new ArrayList<>(List.of(Integer.toString(threads), outcome.toString()));
		arguments.addAll(context.toArguments());
		JavaProcess worker = JavaProcess.start(PermitsWorker.class, arguments.toArray(String[]::new));
		worker.awaitOutput(PermitsWorker.READY, WORKER_START_TIMEOUT);
		return worker;
	}

	private static Figures figures(List<PermitsRun.Outcome> outcomes, CommandCounts commands, Duration duration) {
		Samples waits = new Samples();
		long measured = 0;
		long cpu = 0;
		long peak = 0;
		long held = 0;
		List<Long> perThread = new ArrayList<>();
		List<String> perJvm = new ArrayList<>();
		for (PermitsRun.Outcome outcome : outcomes) {
			waits.addAll(outcome.waits());
			measured += outcome.measured();
			cpu += outcome.cpuNanos();
			peak = Math.max(peak, outcome.peakHolders());
			held += outcome.heldNanos();
			perJvm.add(Long.toString(outcome.measured()));
			for (long count : outcome.perThread()) {
				perThread.add(count);
			}
		}
		Figures figures = new Figures().put("operations", measured)
			.put("opsPerSecond", measured / (duration.toNanos() / 1e9))
			.put("peakHolders", peak)
			.put("permitsBusy", (double) held / duration.toNanos())
			.put("holdMeanMicros", held / 1e3 / Math.max(1, measured))
			.put("waitP50Micros", waits.percentile(0.50) / 1e3)
			.put("waitP99Micros", waits.percentile(0.99) / 1e3)
			.put("waitMaxMicros", waits.max() / 1e3)
			.put("perThreadMin", perThread.stream().mapToLong(Long::longValue).min().orElse(0))
			.put("perThreadMax", perThread.stream().mapToLong(Long::longValue).max().orElse(0))
			.put("perThreadSpread", HotKeyScenario.spread(perThread))
			.put("perJvm", String.join(" / ", perJvm))
			.put("clientCpuMicros", cpu / 1e3);
		// The checker's INCR and DECR, none of them the implementations' (redis-lock's
		// scripts send neither, Redisson's INCRBY and DECRBY): left out whole, as those
		// of acquisitions granted just before the window would be left over
		commands.without("incr").without("decr").writeTo(figures);
		return figures;
	}

}
