package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The worker threads of one contention run: they begin together at a given time, run
 * through the warm-up without a pause and on to the end of the measured window, in which
 * the scenarios count. The first failure of any thread is kept and rethrown by
 * {@link #join()}.
 */
final class TimedThreads {

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

	void start() {
		for (Thread thread : this.threads) {
			thread.start();
		}
	}

	int size() {
		return this.threads.length;
	}

	long measureFromNanos() {
		return this.measureFromNanos;
	}

	long endNanos() {
		return this.endNanos;
	}

	/** Whether a grant at the given time ends its thread's work. */
	boolean isOver(long grantedNanos) {
		return grantedNanos - this.endNanos >= 0;
	}

	/** Whether a grant at the given time falls in the measured window. */
	boolean isMeasured(long grantedNanos) {
		return grantedNanos - this.measureFromNanos >= 0;
	}

	/**
	 * Sleep through the warm-up and the measured window, running an action at each end of
	 * the window, and return the CPU time this JVM used within it.
	 */
	long measure(Runnable atStart, Runnable atEnd) {
		ScenarioContext.sleepUntil(this.measureFromNanos);
		atStart.run();
		long cpu = -CpuTime.process();
		ScenarioContext.sleepUntil(this.endNanos);
		cpu += CpuTime.process();
		atEnd.run();
		return cpu;
	}

	/** Wait for every thread to end; rethrow the first failure. */
	void join() throws InterruptedException {
		for (Thread thread : this.threads) {
			thread.join();
		}
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
	}

}
