package io.github.redislock.benchmarks;

import java.time.Duration;

/**
 * The worker threads of one contention run, each running its work from the start time on;
 * see {@link TimedCallers}.
 */
final class TimedThreads extends TimedCallers {

	private final Thread[] threads;

	/** What each thread does from the start time on, given its index. */
	@FunctionalInterface
	interface Work {

		void run(int index) throws Exception;

	}

	TimedThreads(String name, int count, long startNanos, Duration warmup, Duration duration, Work work) {
		super(startNanos, warmup, duration);
		this.threads = new Thread[count];
		for (int i = 0; i < count; i++) {
			int index = i;
			this.threads[i] = new Thread(() -> {
				try {
					ScenarioContext.sleepUntil(startNanos());
					work.run(index);
				}
				catch (Throwable ex) {
					fail(ex);
				}
			}, name + "-" + i);
		}
	}

	@Override
	void start() {
		for (Thread thread : this.threads) {
			thread.start();
		}
	}

	@Override
	int size() {
		return this.threads.length;
	}

	/** Wait for every thread to end. */
	@Override
	void awaitCallers() throws InterruptedException {
		for (Thread thread : this.threads) {
			thread.join();
		}
	}

}
