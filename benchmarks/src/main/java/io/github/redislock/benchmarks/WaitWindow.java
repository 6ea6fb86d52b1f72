package io.github.redislock.benchmarks;

import java.time.Duration;

import io.github.redislock.test.RedisCli;

/**
 * What waiting costs: the CPU time of the waiting threads and of their JVM, with its
 * busiest other threads, and the Redis commands run, over a window while the waiters wait
 * on a held key. Reactive waiters have no threads: their figure is left out.
 */
final class WaitWindow {

	private final RedisCli cli;

	private final WaitingCallers waiters;

	private final Duration length;

	private final Figures figures = new Figures();

	WaitWindow(RedisCli cli, WaitingCallers waiters, Duration length) {
		this.cli = cli;
		this.waiters = waiters;
		this.length = length;
	}

	void measure() throws InterruptedException {
		ThreadCpu threadCpu = ThreadCpu.start();
		long waitersCpu = -this.waiters.cpuNanos();
		long processCpu = -CpuTime.process();
		RedisActivity redis = new RedisActivity(this.cli);
		redis.start();
		long start = System.nanoTime();
		Thread.sleep(this.length.toMillis());
		redis.stop();
		long window = System.nanoTime() - start;
		processCpu += CpuTime.process();
		waitersCpu += this.waiters.cpuNanos();
		this.figures.put("windowSeconds", window / 1e9)
			.put("processCpuMillis", processCpu / 1e6)
			.put("busiestThreads", threadCpu.busiest(this.waiters.threads()));
		if (this.waiters.threads().length > 0) {
			this.figures.put("waitersCpuMillis", waitersCpu / 1e6);
		}
		redis.commands().writeTo(this.figures);
	}

	/** Copy the measured figures to the scenario's. */
	void writeTo(Figures target) {
		this.figures.names().forEach((name) -> target.put(name, this.figures.get(name)));
	}

}
