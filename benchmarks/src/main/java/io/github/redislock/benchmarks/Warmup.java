package io.github.redislock.benchmarks;

import java.time.Duration;

/**
 * Runs an operation until the JIT compilers have settled: at least the configured
 * warm-up, then until the JVM's own threads (compilers, garbage collector) used less than
 * 5% of a core over two half seconds in a row, and at most four times the configured
 * warm-up. On two cores a compiler still busy with a large client library (Spring Data,
 * Lettuce and Netty take about 10 seconds) takes a core from the benchmark and Redis. CPU
 * time is watched rather than compilation time, which is only counted when a compilation
 * ends.
 */
final class Warmup {

	private static final long CHECK_NANOS = 500_000_000;

	private static final long QUIET_NANOS = CHECK_NANOS / 20;

	private static final int QUIET_CHECKS = 2;

	private Warmup() {
	}

	/**
	 * Wait until the JIT compilers have settled, at most the given time: for a window
	 * that should measure an idle JVM.
	 */
	static void awaitQuietCompilers(Duration limit) throws InterruptedException {
		long end = System.nanoTime() + limit.toNanos();
		int quiet = 0;
		long used = ThreadCpu.vmThreadsNanos();
		while (quiet < QUIET_CHECKS && System.nanoTime() - end < 0) {
			Thread.sleep(CHECK_NANOS / 1_000_000);
			long usedNow = ThreadCpu.vmThreadsNanos();
			quiet = (usedNow - used < QUIET_NANOS) ? quiet + 1 : 0;
			used = usedNow;
		}
	}

	/**
	 * Run the operation until warm.
	 * @return how long the warm-up took
	 */
	static Duration run(Duration minimum, Runnable operation) {
		long start = System.nanoTime();
		long earliestEnd = start + minimum.toNanos();
		long latestEnd = start + 4 * minimum.toNanos();
		long checkedAt = start;
		long used = ThreadCpu.vmThreadsNanos();
		int quiet = 0;
		while (true) {
			operation.run();
			long now = System.nanoTime();
			if (now - latestEnd >= 0) {
				return Duration.ofNanos(now - start);
			}
			if (now - checkedAt >= CHECK_NANOS) {
				long usedNow = ThreadCpu.vmThreadsNanos();
				quiet = (usedNow - used < QUIET_NANOS * (now - checkedAt) / CHECK_NANOS) ? quiet + 1 : 0;
				used = usedNow;
				checkedAt = now;
				if (quiet >= QUIET_CHECKS && now - earliestEnd >= 0) {
					return Duration.ofNanos(now - start);
				}
			}
		}
	}

}
