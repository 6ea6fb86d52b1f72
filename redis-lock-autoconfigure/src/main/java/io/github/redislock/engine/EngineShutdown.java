package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockShutdownException;
import io.github.redislock.engine.ScriptBatches.AwaitedAnswers;
import io.github.redislock.engine.ScriptCommands.PreparedCall;

/**
 * Whether the engine shuts down, which acquisitions and waiters check, and the shutdown.
 *
 * <h2>Design notes</h2>
 *
 * The shutdown runs once, in three phases. It raises the flag and wakes every waiter:
 * from then on an acquisition fails before its first command, and a waiter leaves at its
 * next wake-up with the {@link LockShutdownException}, withdrawing its place in line (a
 * fair queue entry, a writer intent). It waits, up to the grace time, until no hold, no
 * release under way (counted until its script answered, so the connection is never closed
 * under it) and no waiter is left. Then it revokes what is still held: each holder finds
 * its lock lost, and the releases are sent in batches, each awaited together by the
 * engine's deadline; only a release Redis refused is sent again, on its own. An
 * acquisition that passed the flag just before it was raised counts like any other hold.
 * The waits poll: a shutdown is rare, and polling needs no signal from the release path.
 *
 * @author redis-lock
 */
final class EngineShutdown {

	/** The engine's: applications configure its warnings under its name. */
	private static final Log logger = LogFactory.getLog(RedisLockEngine.class);

	/** How long waiters still in a Redis command get to leave at the end. */
	private static final Duration WAITERS_LEAVE = Duration.ofMillis(500);

	/** How many keys the shutdown's warning names at most. */
	private static final int KEYS_NAMED = 50;

	private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	/** Releases sent at once: Redis answers them well within a command timeout. */
	private static final int RELEASE_BATCH = 1000;

	private final AtomicBoolean started = new AtomicBoolean();

	private final CountDownLatch done = new CountDownLatch(1);

	private volatile boolean shuttingDown;

	/**
	 * Start the shutdown, or return false once the one started is done: the context may
	 * close the engine while its lifecycle shuts it down, and must not close the
	 * connections under it.
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

	void done() {
		this.done.countDown();
	}

	/** Run the shutdown once {@link #begin() begun}. */
	void run(Duration grace, Parts engine) {
		engine.subscriptions().wakeAll();
		await(() -> !anyHeld(engine.locks()) && engine.releaser().releasesInFlight() == 0
				&& engine.subscriptions().waiterCount() == 0 && engine.attempts().inFlight() == 0, grace);
		releaseRemaining(grace, engine);
		// Attempts sent before the shutdown began may still bring a grant, which must be
		// released too: they are waited for by the engine's deadline for an answer.
		Duration answerTimeout = Duration.ofNanos(engine.watchdog().answerDeadlineNanos());
		boolean answered = await(() -> engine.attempts().inFlight() == 0, answerTimeout);
		releaseRemaining(grace, engine);
		if (!answered) {
			logger.warn(LogMessage.format(
					"redis-lock shut down while %s lock acquisition(s) had no answer from Redis "
							+ "after %s: a lock Redis granted them is left to expire with its lease",
					engine.attempts().inFlight(), answerTimeout));
		}
		await(() -> engine.subscriptions().waiterCount() == 0 && engine.releaser().releasesInFlight() == 0,
				WAITERS_LEAVE);
	}

	/** The parts of the engine a shutdown waits for and acts on. */
	record Parts(LocalLocks locks, ReleaseSubscriptions subscriptions, AcquireAttempts attempts, LockReleaser releaser,
			LockScripts scripts, LockWatchdog watchdog, @Nullable LockObserver observer) {
	}

	/** A hold found lost protects nothing: the shutdown does not wait for its holder. */
	private static boolean anyHeld(LocalLocks locks) {
		return locks.holds().stream().anyMatch((hold) -> hold.isHeld() && !hold.isReleased());
	}

	/**
	 * Revoke every hold left, naming those still held in a warning; one found lost is
	 * released too, as only this JVM's estimate of its lease may have passed.
	 */
	private static void releaseRemaining(Duration grace, Parts engine) {
		List<String> held = revokeAll(engine, engine.locks().holds());
		if (!held.isEmpty()) {
			logger.warn(LogMessage.format("redis-lock shut down while %s lock(s) were still held after a grace of %s: "
					+ "released them in Redis, so that other instances get them now, and their holders find them lost: "
					+ "%s. Let the work under locks finish within spring.lifecycle.timeout-per-shutdown-phase, or stop "
					+ "it sooner", held.size(), grace, named(held)));
		}
	}

	/** Revoke and release the holds; return the keys of those still held until then. */
	private static List<String> revokeAll(Parts engine, List<LockHold> holds) {
		List<String> held = new ArrayList<>();
		List<LockHold> revoked = new ArrayList<>();
		List<PreparedCall<Long>> calls = new ArrayList<>();
		for (LockHold hold : holds) {
			LockLease lease = hold.lease();
			boolean wasHeld = hold.isHeld() && !hold.isReleased();
			if (!lease.revoke()) {
				continue;
			}
			engine.locks().released(hold);
			engine.watchdog().unwatch(lease);
			if (engine.observer() != null && !hold.isReleased()) {
				// A vacant hold has no holder to tell.
				engine.observer().lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
			if (wasHeld) {
				held.add(hold.key());
			}
			revoked.add(hold);
			calls.add(lease.kind()
				.releaseCall(engine.scripts(), hold.key(), lease.owner(), lease.fencingToken(), hold.fencingToken())
				.prepared());
		}
		for (int first = 0; first < calls.size(); first += RELEASE_BATCH) {
			int end = Math.min(first + RELEASE_BATCH, calls.size());
			AwaitedAnswers answers = new AwaitedAnswers(end - first);
			boolean sent = false;
			try {
				engine.scripts().executeAllAsync(calls.subList(first, end), answers.list());
				sent = true;
				answers.await(TimeUnit.NANOSECONDS.toMillis(engine.watchdog().answerDeadlineNanos()));
			}
			catch (RuntimeException ex) {
				logger.debug("Could not send the releases of the locks still held together; sending them one by one",
						ex);
			}
			for (int i = first; i < end; i++) {
				if (!sent || answers.failed(i - first)) {
					releaseAgain(engine.scripts(), revoked.get(i));
				}
				else if (!answers.succeeded(i - first)) {
					// Still queued in the client, which sends it again after a reconnect:
					// one sent now would wait behind it.
					logger.warn(LogMessage.format(
							"Redis did not answer the release of lock '%s' as the engine shut "
									+ "down; it may still run, and the lock expires with its lease at the latest",
							revoked.get(i).key()));
				}
			}
		}
		return held;
	}

	/** Release a revoked hold on its own, again while its cluster slot is migrated. */
	private static void releaseAgain(LockScripts scripts, LockHold hold) {
		LockLease lease = hold.lease();
		try {
			SlotMigration.retry(() -> lease.kind()
				.release(scripts, hold.key(), lease.owner(), lease.fencingToken(), hold.fencingToken()));
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format(
					"Could not release lock '%s' as the engine shut down; it expires with its lease", hold.key()), ex);
		}
	}

	/** The keys for a log line: the first of them when there are many. */
	private static String named(List<String> keys) {
		String more = (keys.size() > KEYS_NAMED) ? " and " + (keys.size() - KEYS_NAMED) + " more" : "";
		return String.join(", ", keys.subList(0, Math.min(KEYS_NAMED, keys.size()))) + more;
	}

	/** What the holder of a revoked hold is told at its release. */
	static LockLostException lostException(LockHold hold) {
		return new LockLostException(hold.key(), hold.fencingToken(), "Lock '" + hold.key() + "' (fencing token "
				+ hold.fencingToken() + ") was released while held, because the application shut down and its holder "
				+ "did not finish within the grace time, so the work done under it may have overlapped with another "
				+ "owner; finish or stop the work within spring.lifecycle.timeout-per-shutdown-phase (or the grace "
				+ "given to LockTemplate.shutdown)", !hold.lease().claimLossReport());
	}

	void check(String key) {
		if (this.shuttingDown) {
			throw new LockShutdownException(key);
		}
	}

	/**
	 * Turn a failure while the engine shuts down (its connection may be closed) into the
	 * {@link LockShutdownException} every waiter gets, the failure attached.
	 */
	void checkAfterFailure(String key, RuntimeException failure) {
		if (this.shuttingDown) {
			LockShutdownException refused = new LockShutdownException(key);
			refused.addSuppressed(failure);
			throw refused;
		}
	}

	/** Wait until the condition holds or the time is up; return whether it held. */
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
