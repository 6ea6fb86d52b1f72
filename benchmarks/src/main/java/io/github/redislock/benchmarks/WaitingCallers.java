package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The callers that wait in the waiters scenario, threads or reactive chains: each round,
 * every one of them asks for the key once, takes it when granted, notes the wall-clock
 * time and releases it at once.
 */
interface WaitingCallers extends AutoCloseable {

	/**
	 * The threads that wait, whose CPU time is the cost of waiting; none where reactive
	 * chains wait.
	 */
	Thread[] threads();

	/** Let every caller ask for the key. */
	void request();

	/**
	 * Wait until every caller has asked for the key and been waiting for the given time,
	 * so that what follows measures waiting, not getting there.
	 */
	void awaitSettled(Duration settled, Duration timeout) throws InterruptedException;

	/** How many callers have been granted the key in this round so far. */
	int granted();

	/**
	 * Wait until every caller has been granted the key and released it.
	 * @return the wall-clock time in microseconds of each grant
	 */
	long[] awaitGrants(Duration timeout) throws InterruptedException, TimeoutException;

	/** CPU time used so far by the waiting threads. */
	long cpuNanos();

	@Override
	void close();

}
