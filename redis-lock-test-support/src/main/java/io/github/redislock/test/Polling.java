package io.github.redislock.test;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition by polling, for the places that must wait on something outside
 * the JVM (a process, a port, a cluster or sentinels agreeing).
 */
final class Polling {

	private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	private Polling() {
	}

	/**
	 * Polls the condition until it holds or the timeout has passed.
	 * @param condition the condition
	 * @param timeout how long to wait at most
	 * @return whether the condition held in time
	 */
	static boolean await(BooleanSupplier condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			pause();
		}
		return true;
	}

	/**
	 * Polls a check until it finds no problem, and fails with the last problem it found
	 * otherwise, so a timeout says what was still wrong. A check that cannot reach Redis
	 * counts as a problem, not as a failure.
	 * @param check returns what is still wrong, or {@code null} once all is well
	 * @param timeout how long to wait at most
	 * @param interval how long to wait between two checks
	 * @param goal what is awaited, for the message, for example
	 * {@code "the cluster is healthy"}
	 * @throws IllegalStateException on timeout
	 */
	static void awaitNoProblem(Supplier<String> check, Duration timeout, Duration interval, String goal) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String problem;
			try {
				problem = check.get();
			}
			catch (UncheckedIOException | RedisErrorReplyException ex) {
				problem = ex.getMessage() + ((ex.getCause() != null) ? " (" + ex.getCause() + ")" : "");
			}
			if (problem == null) {
				return;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						"Waited " + timeout.toMillis() + " ms in vain until " + goal + ". Still: " + problem);
			}
			LockSupport.parkNanos(interval.toNanos());
			if (Thread.currentThread().isInterrupted()) {
				throw new IllegalStateException("Interrupted while waiting until " + goal);
			}
		}
	}

	/**
	 * Parks the calling thread for one polling interval.
	 */
	static void pause() {
		LockSupport.parkNanos(INTERVAL_NANOS);
		if (Thread.currentThread().isInterrupted()) {
			throw new IllegalStateException("Interrupted while waiting");
		}
	}

}
