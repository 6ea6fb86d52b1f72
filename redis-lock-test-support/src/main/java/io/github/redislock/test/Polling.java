package io.github.redislock.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition by polling, for the few places that must wait on something
 * outside the JVM (a process, a port).
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
	 * Parks the calling thread for one polling interval.
	 */
	static void pause() {
		LockSupport.parkNanos(INTERVAL_NANOS);
		if (Thread.currentThread().isInterrupted()) {
			throw new IllegalStateException("Interrupted while waiting");
		}
	}

}
