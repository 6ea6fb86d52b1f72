package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.github.redislock.LockShutdownException;

/**
 * Whether the engine shuts down, which the acquire path and the waiting threads check,
 * and the waits of the shutdown itself.
 *
 * <h2>Design notes</h2>
 *
 * The shutdown runs once, in three steps. It first raises the flag and wakes every
 * waiter: from then on an acquisition fails before its first command, and a waiter checks
 * the flag each time it wakes, before it takes a hand-over or tries again, so it leaves
 * with the {@link LockShutdownException}, and in leaving withdraws its place in line (a
 * fair queue entry, a writer intent) and passes on a hold handed to it. Then it waits,
 * for up to the grace time, until no hold, no release under way and no waiter is left:
 * holders that finish release as usual. A release counts from before its hold leaves the
 * engine's holds until its script answered, so the connection is never closed under it.
 * Last it releases what is still held, and the engine closes its connections.
 *
 * <p>
 * An acquisition that passed the check just before the flag was raised may still be
 * granted: its hold counts like any other, so it is waited for and, if need be, released.
 * The waits poll: a shutdown is rare, and a poll a few milliseconds apart needs no signal
 * from the release path, which stays as it is.
 *
 * @author redis-lock
 */
final class EngineShutdown {

	/** How often the shutdown looks whether holders and waiters are gone. */
	private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private final AtomicBoolean started = new AtomicBoolean();

	private final CountDownLatch done = new CountDownLatch(1);

	private volatile boolean shuttingDown;

	/**
	 * Start the shutdown: from now on acquisitions and waiters fail. A call that finds it
	 * started waits until it is done: the application context may close the engine while
	 * its lifecycle shuts it down, and must not close the connections under it.
	 * @return false when it was started before, and is now done
	 */
	boolean begin() {
		if (!this.started.compareAndSet(false, true)) {
			try {
				this.done.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return false;
		}
		this.shuttingDown = true;
		return true;
	}

	/** Mark the shutdown done, releasing the callers waiting for it. */
	void done() {
		this.done.countDown();
	}

	/**
	 * Refuse an acquisition of the given lock when the engine shuts down.
	 * @throws LockShutdownException when it does
	 */
	void check(String key) {
		if (this.shuttingDown) {
			throw new LockShutdownException(key);
		}
	}

	/**
	 * Wait until the condition holds or the time is up.
	 * @return whether the condition held
	 */
	static boolean await(BooleanSupplier condition, Duration time) {
		long deadline = System.nanoTime() + Durations.nanos(time);
		while (!condition.getAsBoolean()) {
			long left = deadline - System.nanoTime();
			if (left <= 0 || Thread.currentThread().isInterrupted()) {
				return false;
			}
			LockSupport.parkNanos(Math.min(left, POLL_NANOS));
		}
		return true;
	}

}
