package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Map;

import io.github.redislock.test.RedisCli;

/**
 * Threads of one JVM share one read/write lock, mostly reading (see
 * {@link ReadWriteRun}): what readers gain from sharing the lock, what writers wait
 * behind a steady stream of readers, and whether a write was lost or a reader let in
 * beside a writer.
 */
final class ReadWriteScenario {

	private ReadWriteScenario() {
	}

	static Figures run(ScenarioContext context) throws Exception {
		BenchmarkSettings settings = context.settings();
		try (RedisCli cli = context.cli();
				LockClient client = context.openClient();
				Counter counter = new Counter(context.host(), context.port())) {
			cli.set(Counter.KEY, "0");
			ReadWriteRun run = new ReadWriteRun(client, counter, settings.hotKeyThreads(), settings.hotKeyWarmup(),
					settings.duration())
				.start();
			Map<String, Double> clientShares = HotKeyScenario.probe(context, cli, run.measureFromNanos());
			RedisActivity redis = new RedisActivity(cli);
			long cpu = run.measure(redis::start, redis::stop);
			ReadWriteRun.Outcome outcome = run.join(cpu);
			long counted = Long.parseLong(cli.get(Counter.KEY));
			Figures figures = figures(outcome, counted, redis.commands(), settings.duration());
			CommandCounts.writeShares(clientShares, figures);
			return figures.put("redisCpuMicros", redis.cpuNanos() / 1e3);
		}
	}

	private static Figures figures(ReadWriteRun.Outcome outcome, long counted, CommandCounts commands,
			Duration duration) {
		Samples reads = outcome.readWaits();
		Samples writes = outcome.writeWaits();
		double seconds = duration.toNanos() / 1e9;
		long operations = reads.size() + writes.size();
		Figures figures = new Figures().put("operations", operations)
			.put("opsPerSecond", operations / seconds)
			.put("readsPerSecond", reads.size() / seconds)
			.put("writesPerSecond", writes.size() / seconds)
			.put("lostWrites", outcome.totalWrites() - counted)
			.put("overlaps", outcome.overlaps())
			.put("readWaitP50Micros", reads.percentile(0.50) / 1e3)
			.put("readWaitP99Micros", reads.percentile(0.99) / 1e3)
			.put("writeWaitP50Micros", writes.percentile(0.50) / 1e3)
			.put("writeWaitP99Micros", writes.percentile(0.99) / 1e3)
			.put("writeWaitMaxMicros", writes.max() / 1e3)
			.put("clientCpuMicros", outcome.cpuNanos() / 1e3);
		// Every measured acquisition sent a GET of its own, and each write a SET too
		commands.minus("get", operations).minus("set", writes.size()).writeTo(figures);
		return figures;
	}

}
