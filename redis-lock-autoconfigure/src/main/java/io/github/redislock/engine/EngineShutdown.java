package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockShutdownException;

/**
 * Whether the engine shuts down, which the acquire path and the waiting threads check,
 * and the waits of the shutdown itself.
 *
 * <h2>Design notes</h2>
 *
 * The shutdown runs once, in three steps. It first raises the flag and wakes every
 * waiter: from then on an acquisition fails before its first command, and a waiter checks
 * the flag each time it wakes, before it tries again, so it leaves with the
 * {@link LockShutdownException}, and in leaving withdraws its place in line (a fair queue
 * entry, a writer intent). Then it waits, for up to the grace time, until no hold, no
 * release under way and no waiter is left: holders that finish release as usual. A
 * release counts from before its hold leaves the engine's holds until its script
 * answered, so the connection is never closed under it. Last it releases what is still
 * held, all at once, and the engine closes its connections.
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

	/** The engine's: applications configure its warnings under its name. */
	private static final Log logger = LogFactory.getLog(RedisLockEngine.class);

	/**
	 * How long a shutdown waits, after releasing what was still held, for waiters that
	 * are in a Redis command to leave and for releases under way to end.
	 */
	private static final Duration WAITERS_LEAVE = Duration.ofMillis(500);

	/** How many keys the shutdown's warning names at most. */
	private static final int KEYS_NAMED = 50;

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
	 * Run the shutdown once {@link #begin() begun}: wake the waiters, wait up to the
	 * grace for holders to finish, release what is still held, and wait a little for
	 * waiters and releases still in a Redis command.
	 */
	void run(Duration grace, Parts engine) {
		engine.subscriptions().wakeAll();
		await(() -> !anyHeld(engine.locks()) && engine.releaser().releasesInFlight() == 0
				&& engine.subscriptions().waiterCount() == 0 && engine.attempts().inFlight() == 0, grace);
		releaseRemaining(grace, engine.locks(), engine.revocations());
		// Attempts sent before the shutdown began may still bring a grant, which must be
		// released too: they are waited for by the engine's deadline for an answer.
		boolean answered = await(() -> engine.attempts().inFlight() == 0, engine.answerTimeout());
		releaseRemaining(grace, engine.locks(), engine.revocations());
		if (!answered) {
			logger.warn(LogMessage.format(
					"redis-lock shut down while %s lock acquisition(s) had no answer from Redis "
							+ "after %s: a lock Redis granted them is left to expire with its lease",
					engine.attempts().inFlight(), engine.answerTimeout()));
		}
		// Waiters still in a Redis command leave once it answers, and releases under way
		// end: both need the connection.
		await(() -> engine.subscriptions().waiterCount() == 0 && engine.releaser().releasesInFlight() == 0,
				WAITERS_LEAVE);
	}

	/**
	 * The parts of the engine a shutdown waits for and acts on.
	 *
	 * @param answerTimeout how long the engine waits for an answer from Redis
	 * ({@link LockWatchdog#answerDeadlineNanos()})
	 */
	record Parts(LocalLocks locks, ReleaseSubscriptions subscriptions, AcquireAttempts attempts, LockReleaser releaser,
			Revocations revocations, Duration answerTimeout) {
	}

	/**
	 * Whether a hold is still held: one whose lock was found lost protects nothing, so
	 * the shutdown does not wait for its holder to notice.
	 */
	private static boolean anyHeld(LocalLocks locks) {
		for (LockHold hold : locks.holds()) {
			if (hold.isHeld() && !hold.isReleased()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Release every hold left, and name those still held in a warning. A hold found lost
	 * is released too, quietly: its lease may yet be alive in Redis when only this JVM's
	 * estimate of it passed.
	 */
	private static void releaseRemaining(Duration grace, LocalLocks locks, Revocations revocations) {
		List<LockHold> remaining = List.copyOf(locks.holds());
		Set<LockHold> held = Collections.newSetFromMap(new IdentityHashMap<>());
		for (LockHold hold : remaining) {
			if (hold.isHeld() && !hold.isReleased()) {
				held.add(hold);
			}
		}
		List<String> released = new ArrayList<>();
		for (LockHold hold : revocations.revokeAll(remaining)) {
			if (held.contains(hold)) {
				released.add(hold.key());
			}
		}
		if (!released.isEmpty()) {
			logger.warn(LogMessage.format("redis-lock shut down while %s lock(s) were still held after a grace of %s: "
					+ "released them in Redis, so that other instances get them now, and their holders find them lost: "
					+ "%s. Let the work under locks finish within spring.lifecycle.timeout-per-shutdown-phase, or stop "
					+ "it sooner", released.size(), grace, named(released)));
		}
	}

	/** The keys for a log line: the first of them when there are many. */
	private static String named(List<String> keys) {
		if (keys.size() <= KEYS_NAMED) {
			return String.join(", ", keys);
		}
		return String.join(", ", keys.subList(0, KEYS_NAMED)) + " and " + (keys.size() - KEYS_NAMED) + " more";
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
	 * Refuse an acquisition that failed while the engine shuts down, for example because
	 * the shutdown closed the connection it was using: its caller gets the answer every
	 * waiter gets, with the failure attached, rather than a Redis failure.
	 * @throws LockShutdownException when the engine shuts down
	 */
	void checkAfterFailure(String key, RuntimeException failure) {
		if (this.shuttingDown) {
			LockShutdownException refused = new LockShutdownException(key);
			refused.addSuppressed(failure);
			throw refused;
		}
	}

	/**
	 * Wait until the condition holds or the time is up.
	 * @return whether the condition held
	 */
	static boolean await(BooleanSupplier condition, Duration time) {
		long deadline = System.nanoTime() + LockLease.nanos(time);
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
