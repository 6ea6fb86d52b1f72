package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The callers of one contention run, threads or reactive chains: they begin together at a
 * given time, run through the warm-up without a pause and on to the end of the measured
 * window, in which the scenarios count. The first failure of any caller is kept and
 * rethrown by {@link #join()}. The window and the failure are kept here; a subclass says
 * how its callers start and end.
 */
abstract class TimedCallers {

	private final long startNanos;

	private final long measureFromNanos;

	private final long endNanos;

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	TimedCallers(long startNanos, Duration warmup, Duration duration) {
		this.startNanos = startNanos;
		this.measureFromNanos = startNanos + warmup.toNanos();
		this.endNanos = this.measureFromNanos + duration.toNanos();
	}

	/** Have the callers begin at the start time. */
	abstract void start();

	/** How many callers there are. */
	abstract int size();

	/** Wait for every caller to end. */
	abstract void awaitCallers() throws InterruptedException;

	final long startNanos() {
		return this.startNanos;
	}

	final long measureFromNanos() {
		return this.measureFromNanos;
	}

	final long endNanos() {
		return this.endNanos;
	}

	/** Whether a grant at the given time ends its caller's work. */
	final boolean isOver(long grantedNanos) {
		return grantedNanos - this.endNanos >= 0;
	}

	/** Whether a grant at the given time falls in the measured window. */
	final boolean isMeasured(long grantedNanos) {
		return grantedNanos - this.measureFromNanos >= 0;
	}

	/**
	 * Sleep through the warm-up and the measured window, running an action at each end of
	 * the window, and return the CPU time this JVM used within it.
	 */
	final long measure(Runnable atStart, Runnable atEnd) {
		ScenarioContext.sleepUntil(this.measureFromNanos);
		atStart.run();
		long cpu = -CpuTime.process();
		ScenarioContext.sleepUntil(this.endNanos);
		cpu += CpuTime.process();
		atEnd.run();
		return cpu;
	}

	/** Keep a caller's failure, unless one came first. */
	final void fail(Throwable ex) {
		this.failure.compareAndSet(null, ex);
	}

	/** Wait for every caller to end; rethrow the first failure. */
	final void join() throws InterruptedException {
		awaitCallers();
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
	}

}
