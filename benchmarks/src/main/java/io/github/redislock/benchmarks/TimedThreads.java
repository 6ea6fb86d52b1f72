package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The worker threads of one contention run, each running its work from the start time on;
 * see {@link TimedCallers}.
 */
final class TimedThreads implements TimedCallers {

	private final long startNanos;

	private final long measureFromNanos;

	private final long endNanos;

	private final Thread[] threads;

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	/** What each thread does from the start time on, given its index. */
	@FunctionalInterface
	interface Work {

		void run(int index) throws Exception;

	}

	TimedThreads(String name, int count, long startNanos, Duration warmup, Duration duration, Work work) {
		this.startNanos = startNanos;
		this.measureFromNanos = startNanos + warmup.toNanos();
		this.endNanos = this.measureFromNanos + duration.toNanos();
		this.threads = new Thread[count];
		for (int i = 0; i < count; i++) {
			int index = i;
			this.threads[i] = new Thread(() -> {
				try {
					ScenarioContext.sleepUntil(this.startNanos);
					work.run(index);
				}
				catch (Throwable ex) {
					this.failure.compareAndSet(null, ex);
				}
			}, name + "-" + i);
		}
	}

	@Override
	public void start() {
		for (Thread thread : this.threads) {
			thread.start();
		}
	}

	@Override
	public int size() {
		return this.threads.length;
	}

	@Override
	public long measureFromNanos() {
		return this.measureFromNanos;
	}

	@Override
	public long endNanos() {
		return this.endNanos;
	}

	/** Wait for every thread to end; rethrow the first failure. */
	@Override
	public void join() throws InterruptedException {
		for (Thread thread : this.threads) {
			thread.join();
		}
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
	}

}
