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
 * Threads take turns on one key, exclusive or fair; under the lock each reads and writes
 * back a Redis counter; a reactive implementation runs as many reactive chains (see
 * {@link HotKeyRun}). With two JVMs, this process runs half of the threads and a
 * {@link HotKeyWorker} the other half; they start at a time this process publishes in
 * Redis once the worker is ready. Both JVMs' critical sections are merged on one
 * {@link LockTimeline}.
 */
final class HotKeyScenario {

	static final String START_KEY = "benchmarks:start";

	private static final Duration WORKER_START_TIMEOUT = Duration.ofSeconds(60);

	/** How long the end of the warm-up is watched with MONITOR, at most. */
	private static final Duration PROBE = Duration.ofMillis(500);

	/** Time left between the probe and the measured window. */
	private static final Duration MARGIN = Duration.ofMillis(50);

	private HotKeyScenario() {
	}

	/**
	 * Run the hot key.
	 * @param jvms how many JVMs share the threads; the critical section alone runs on one
	 * thread of this JVM whatever the number
	 */
	static Figures run(ScenarioContext context, int jvms, LockClient.Kind kind) throws Exception {
		BenchmarkSettings settings = context.settings();
		boolean alone = context.implementation() == Implementation.LIMIT_SINGLE_THREAD;
		int threads = alone ? 1 : settings.hotKeyThreads() / jvms;
		Path workerOutcome = Files.createTempFile("hot-key-worker", ".bin");
		try (RedisCli cli = context.cli();
				LockClient client = context.openClient();
				Counter counter = new Counter(context.host(), context.port());
				JavaProcess worker = (jvms > 1 && !alone) ? startWorker(context, threads, kind, workerOutcome) : null) {
			cli.set(Counter.KEY, "0");
			long startAt = System.currentTimeMillis() + 300;
			cli.set(START_KEY, Long.toString(startAt));
			HotKeyRun run = new HotKeyRun(client, kind, counter, threads, startAt, settings.hotKeyWarmup(),
					settings.duration())
				.start();
			Map<String, Double> clientShares = probe(context, cli, run.measureFromNanos());
			RedisActivity redis = new RedisActivity(cli);
			long cpu = run.measure(redis::start, redis::stop);
			List<HotKeyRun.Outcome> outcomes = new ArrayList<>(List.of(run.join(cpu)));
			if (worker != null) {
				int exit = worker.waitFor(settings.hotKeyWarmup().plus(settings.duration()).plus(WORKER_START_TIMEOUT));
				if (exit != 0) {
					throw new IllegalStateException("The second JVM failed: " + Failures.fromOutput(worker.output()));
				}
				outcomes.add(HotKeyRun.Outcome.readFrom(workerOutcome));
			}
			long counted = Long.parseLong(cli.get(Counter.KEY));
			Figures figures = figures(outcomes, counted, redis.commands(), settings.duration());
			CommandCounts.writeShares(clientShares, figures);
			return figures.put("redisCpuMicros", redis.cpuNanos() / 1e3);
		}
		finally {
			Files.deleteIfExists(workerOutcome);
		}
	}

	/**
	 * Watch the end of the warm-up with MONITOR, which tells which commands of this
	 * workload clients send and which run in scripts, without slowing the measured
	 * window.
	 */
	static Map<String, Double> probe(ScenarioContext context, RedisCli cli, long measureFromNanos)
			throws InterruptedException {
		return probe(context, cli, measureFromNanos, Counter.KEY);
	}

	/**
	 * The same, leaving out the commands on a key of the scenario's own critical section
	 * rather than the counter's.
	 */
	static Map<String, Double> probe(ScenarioContext context, RedisCli cli, long measureFromNanos, String ignoredKey)
			throws InterruptedException {
		long probeNanos = Math.min(PROBE.toNanos(), context.settings().hotKeyWarmup().toNanos() / 2);
		ScenarioContext.sleepUntil(measureFromNanos - probeNanos - MARGIN.toNanos());
		MonitorProbe probe = MonitorProbe.start(context.host(), context.port(), ignoredKey);
		ScenarioContext.sleepUntil(measureFromNanos - MARGIN.toNanos());
		probe.finish(cli);
		return probe.clientShares();
	}

	private static JavaProcess startWorker(ScenarioContext context, int threads, LockClient.Kind kind, Path outcome) {
		try (RedisCli cli = context.cli()) {
			cli.command("DEL", START_KEY);
		}
		List<String> arguments = new ArrayList<>(List.of(Integer.toString(threads), outcome.toString(), kind.name()));
		arguments.addAll(context.toArguments());
		JavaProcess worker = JavaProcess.start(HotKeyWorker.class, arguments.toArray(String[]::new));
		worker.awaitOutput(HotKeyWorker.READY, WORKER_START_TIMEOUT);
		return worker;
	}

	private static Figures figures(List<HotKeyRun.Outcome> outcomes, long counted, CommandCounts commands,
			Duration duration) {
		Samples waits = new Samples();
		long total = 0;
		long measured = 0;
		long cpu = 0;
		long minPerThread = Long.MAX_VALUE;
		long maxPerThread = 0;
		List<Long> perThread = new ArrayList<>();
		List<String> perJvm = new ArrayList<>();
		for (HotKeyRun.Outcome outcome : outcomes) {
			waits.addAll(outcome.waits());
			total += outcome.totalOperations();
			measured += outcome.measured();
			cpu += outcome.cpuNanos();
			perJvm.add(Long.toString(outcome.measured()));
			for (long count : outcome.perThread()) {
				perThread.add(count);
				minPerThread = Math.min(minPerThread, count);
				maxPerThread = Math.max(maxPerThread, count);
			}
		}
		Figures figures = new Figures().put("operations", measured)
			.put("opsPerSecond", measured / (duration.toNanos() / 1e9))
			.put("lostUpdates", total - counted)
			.put("waitP50Micros", waits.percentile(0.50) / 1e3)
			.put("waitP99Micros", waits.percentile(0.99) / 1e3)
			.put("waitMaxMicros", waits.max() / 1e3)
			.put("perThreadMin", minPerThread)
			.put("perThreadMax", maxPerThread)
			.put("perThreadSpread", spread(perThread))
			.put("perJvm", String.join(" / ", perJvm))
			.put("clientCpuMicros", cpu / 1e3);
		// Each acquisition's critical section sent one GET and one SET of its own
		commands.minus("get", measured).minus("set", measured).writeTo(figures);
		LockTimeline.writeTo(outcomes.stream().map(HotKeyRun.Outcome::sections).toList(), duration, figures);
		return figures;
	}

	/**
	 * How unevenly the threads shared the lock: the standard deviation of their
	 * acquisitions over the mean, 0 when every thread got as many. Unlike the min–max
	 * range it weighs every thread, so a run of 8 threads is compared with one of 4.
	 */
	static double spread(List<Long> perThread) {
		double mean = perThread.stream().mapToLong(Long::longValue).average().orElse(0);
		if (mean == 0) {
			return 0;
		}
		double variance = perThread.stream().mapToDouble((count) -> (count - mean) * (count - mean)).sum()
				/ perThread.size();
		return Math.sqrt(variance) / mean;
	}

}
