package io.github.redislock.benchmarks;

/**
 * The callers of one contention run, threads or reactive chains: they begin together at a
 * given time, run through the warm-up without a pause and on to the end of the measured
 * window, in which the scenarios count. The first failure of any caller is kept and
 * rethrown by {@link #join()}.
 */
interface TimedCallers {

	/** Have the callers begin at the start time. */
	void start();

	/** How many callers there are. */
	int size();

	long measureFromNanos();

	long endNanos();

	/** Whether a grant at the given time ends its caller's work. */
	default boolean isOver(long grantedNanos) {
		return grantedNanos - endNanos() >= 0;
	}

	/** Whether a grant at the given time falls in the measured window. */
	default boolean isMeasured(long grantedNanos) {
		return grantedNanos - measureFromNanos() >= 0;
	}

	/**
	 * Sleep through the warm-up and the measured window, running an action at each end of
	 * the window, and return the CPU time this JVM used within it.
	 */
	default long measure(Runnable atStart, Runnable atEnd) {
		ScenarioContext.sleepUntil(measureFromNanos());
		atStart.run();
		long cpu = -CpuTime.process();
		ScenarioContext.sleepUntil(endNanos());
		cpu += CpuTime.process();
		atEnd.run();
		return cpu;
	}

	/** Wait for every caller to end; rethrow the first failure. */
	void join() throws InterruptedException;

}
