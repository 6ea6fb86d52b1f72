package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.test.RedisCli;

/**
 * One thread takes and releases distinct keys, back to back: the cost of a lock when
 * nobody else wants it. Latency is that of the pair. A short {@link MonitorProbe} then
 * counts the round trips exactly.
 */
final class UncontendedScenario {

	private static final int PROBE_OPERATIONS = 500;

	/** Length of one warm-up round, between two checks of the JIT compilers. */
	private static final long SLICE_NANOS = 100_000_000;

	private UncontendedScenario() {
	}

	static Figures run(ScenarioContext context) throws InterruptedException {
		try (LockClient client = context.openClient(); RedisCli cli = context.cli()) {
			AtomicLong keys = new AtomicLong();
			Samples latencies = new Samples();
			// The warm-up runs the very loop that is measured, so that the code the JIT
			// compiled for it is the code measured
			Duration warmup = Warmup.run(context.settings().warmup(), () -> {
				latencies.clear();
				loop(client, keys, System.nanoTime() + SLICE_NANOS, latencies);
			});
			latencies.clear();
			RedisActivity redis = new RedisActivity(cli);
			redis.start();
			long clientCpu = -CpuTime.process();
			ThreadCpu threadCpu = ThreadCpu.start();
			long start = System.nanoTime();
			long end = loop(client, keys, start + context.settings().duration().toNanos(), latencies);
			clientCpu += CpuTime.process();
			String busiest = threadCpu.busiest();
			redis.stop();
			Figures figures = new Figures().put("operations", latencies.size())
				.put("opsPerSecond", latencies.size() / ((end - start) / 1e9))
				.put("p50Micros", latencies.percentile(0.50) / 1e3)
				.put("p99Micros", latencies.percentile(0.99) / 1e3)
				.put("clientCpuMicros", clientCpu / 1e3)
				.put("redisCpuMicros", redis.cpuNanos() / 1e3)
				.put("busiestThreads", busiest)
				.put("warmupSeconds", warmup.toMillis() / 1e3);
			redis.commands().writeTo(figures);
			MonitorProbe probe = MonitorProbe.start(context.host(), context.port());
			for (int i = 0; i < PROBE_OPERATIONS; i++) {
				client.acquire("uncontended:" + keys.getAndIncrement()).release();
			}
			probe.finish(cli);
			CommandCounts.writeShares(probe.clientShares(), figures);
			return figures.put("probe.operations", PROBE_OPERATIONS)
				.put("probe.clientCommands", probe.clientCommands())
				.put("probe.scriptCommands", probe.scriptCommands());
		}
	}

	/**
	 * Lock and release new keys until the deadline, recording each pair's latency.
	 * @return the time the last operation ended
	 */
	private static long loop(LockClient client, AtomicLong keys, long endNanos, Samples latencies) {
		long now = System.nanoTime();
		while (now - endNanos < 0) {
			long before = now;
			client.acquire("uncontended:" + keys.getAndIncrement()).release();
			now = System.nanoTime();
			latencies.add(now - before);
		}
		return now;
	}

}
