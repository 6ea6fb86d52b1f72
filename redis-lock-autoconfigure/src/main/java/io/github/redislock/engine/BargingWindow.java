package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

/**
 * How long a local waiter of one lock may be barged before it is handed the lock
 * ({@link LocalHandOver}): long enough for a few turns of the line of this JVM's waiters,
 * from the lock's measured hold time, within fixed bounds.
 *
 * <h2>Design notes</h2>
 *
 * While a waiter may be barged, a released lock is left vacant and the thread that
 * released it usually takes it again at once; once the first waiter has waited past the
 * window, each release hands the lock to it and wakes its thread, which leaves the lock
 * idle while the thread is scheduled. Under barging nearly every waiter reaches the
 * window, so the window decides how often a line is served strictly: a waiter that
 * rejoins the line at its end must be able to reach its head before the window ends, or
 * the line stays strict and pays a wake-up per grant. That takes a turn of the line,
 * {@code waiters x hold time}: with 8 threads and critical sections of 200 us, about 1.6
 * ms, which a fixed window of 2 ms missed on most turns; {@value #TURNS} turns left
 * barging in place. The window never drops below {@value #MIN_MILLIS} ms (a waiter of
 * short critical sections is served within that anyway) and never exceeds
 * {@value #MAX_MILLIS} ms, so that no waiter of a hot key waits much longer than 20 ms
 * for barging's sake: past a line that long, waiters are served strictly in order.
 * <p>
 * The hold time is an average of this JVM's holds of the lock, weighted to the latest
 * ({@value #WEIGHT_SHIFT} bits of decay: about the last 8 holds). Updated under the
 * channel's monitor at each release that a local waiter sees, read without it.
 *
 * @author redis-lock
 */
final class BargingWindow {

	/** The window's lower bound, in milliseconds. */
	static final long MIN_MILLIS = 2;

	/** The window's upper bound, in milliseconds. */
	static final long MAX_MILLIS = 10;

	/** How many turns of the line the window lasts. */
	static final int TURNS = 3;

	private static final int WEIGHT_SHIFT = 3;

	static final long MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(MIN_MILLIS);

	static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_MILLIS);

	private long averageHeldNanos = -1;

	private volatile long nanos = MIN_NANOS;

	/**
	 * Record the hold time of a hold just released while the given number of local
	 * threads wait, and set the window from it. Called under the channel's monitor.
	 */
	void released(long heldNanos, int waiters) {
		if (heldNanos < 0) {
			return;
		}
		long average = (this.averageHeldNanos < 0) ? heldNanos
				: this.averageHeldNanos + ((heldNanos - this.averageHeldNanos) >> WEIGHT_SHIFT);
		this.averageHeldNanos = average;
		this.nanos = windowNanos(average, waiters);
	}

	/** How long a waiter may be barged now. */
	long nanos() {
		return this.nanos;
	}

	static long windowNanos(long averageHeldNanos, int waiters) {
		// Bounded before multiplying, so that no hold time overflows the product.
		long turns = Math.min(averageHeldNanos, MAX_NANOS) * TURNS * waiters;
		return Math.max(MIN_NANOS, Math.min(MAX_NANOS, turns));
	}

}
