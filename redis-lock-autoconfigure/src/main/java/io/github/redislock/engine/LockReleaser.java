package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver.ReleaseOutcome;
import io.github.redislock.LockObserver;
import io.github.redislock.engine.ScriptBatches.PreparedCall;

/**
 * The release path: a handle closed, the hold's count goes down, and the last handle
 * releases the lock: to the first waiter of this JVM when the grant may pass
 * ({@link HandOver}), or else in Redis.
 *
 * <p>
 * Ordering: the hold leaves {@link LocalLocks} and the watchdog before the release script
 * runs, so that a renewal answered meanwhile, which finds the key gone, is not taken for
 * a loss. A release whose answer is lost is given back in the background
 * ({@link BackgroundReleases}) for the rest of the lease. A release refused during a
 * cluster slot migration is sent again for up to two seconds. For a kind that
 * {@linkplain LockKind#yields() yields}, the releasing thread then wakes a local waiter
 * itself, at once or when the yield to other JVMs ends.
 *
 * @author redis-lock
 */
final class LockReleaser {

	private static final Log logger = LogFactory.getLog(LockReleaser.class);

	/**
	 * How long at most this JVM leaves a lock it released alone when other JVMs wait for
	 * it; the first release by another JVM ends the wait sooner.
	 */
	private static final long YIELD_NANOS = 50_000_000;

	/**
	 * How many releases a shutdown sends at once, and awaits before it sends more: few
	 * enough that Redis answers them all well within a command timeout.
	 */
	private static final int RELEASE_BATCH = 1000;

	/** How long a release refused during a slot migration is sent again. */
	private static final long MIGRATION_GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final LockWatchdog watchdog;

	private final BackgroundReleases backgroundReleases;

	private final HandOver handOver;

	private final @Nullable LockObserver observer;

	private final AtomicInteger releasing = new AtomicInteger();

	LockReleaser(LockScripts scripts, LocalLocks locks, LockWatchdog watchdog, BackgroundReleases backgroundReleases,
			HandOver handOver, @Nullable LockObserver observer) {
		this.handOver = handOver;
		this.scripts = scripts;
		this.locks = locks;
		this.watchdog = watchdog;
		this.backgroundReleases = backgroundReleases;
		this.observer = observer;
	}

	/**
	 * Count one handle of the hold less, and release the lock with the last one.
	 * @throws LockLostException when the lock was found lost
	 * @throws LockAccessException when Redis failed; the release goes on in the
	 * background
	 */
	void release(LockHold hold) {
		if (!hold.exit()) {
			if (hold.isLost()) {
				throw hold.lostException();
			}
			return;
		}
		LockLease lease = hold.lease();
		if (lease.isRevoked()) {
			LockLostException lost = revokedException(hold);
			observeRelease(hold, ReleaseOutcome.LOST, lost);
			throw lost;
		}
		this.releasing.incrementAndGet();
		try {
			releaseLast(hold, lease);
		}
		finally {
			this.releasing.decrementAndGet();
		}
	}

	/**
	 * Number of releases under way: the hold has left {@link LocalLocks} but the script
	 * may not have answered yet, so a shutdown must not close the connection.
	 */
	int releasesInFlight() {
		return this.releasing.get();
	}

	private void releaseLast(LockHold hold, LockLease lease) {
		LockKind kind = lease.kind();
		String channel = kind.channel(this.scripts.keys(), hold.key());
		long releasedAt = System.nanoTime();
		if (this.handOver.mayPass(hold) && this.handOver.pass(hold, channel, releasedAt)) {
			// Told only once Redis was found to hold the grant after this release began.
			if (!this.handOver.awaitHeld(lease, releasedAt) || lease.isLost()) {
				throw passedLost(hold);
			}
			observeRelease(hold, ReleaseOutcome.RELEASED, null);
			return;
		}
		leaveForRelease(hold, lease);
		long outcome;
		try {
			outcome = releaseInRedis(kind, hold);
		}
		catch (RuntimeException ex) {
			throw releaseFailed(hold, lease, ex);
		}
		released(hold, lease, channel, outcome);
	}

	/**
	 * Count one handle of the hold less, and release the lock with the last one, without
	 * blocking the calling thread: the release script is sent without waiting (opening
	 * the connection, if it is not open, on a housekeeping thread), and a refusal during
	 * a slot migration is sent again from a housekeeping timer. Otherwise as
	 * {@link #release}: the same yield, wake-up and observer reports.
	 * @return completes when released, on the Redis client's thread or the caller's;
	 * exceptionally with the {@link LockLostException} or {@link LockAccessException}
	 * that {@link #release} would throw
	 */
	CompletionStage<Void> releaseAsync(LockHold hold, Housekeeping housekeeping) {
		try {
			if (!hold.exit()) {
				if (hold.isLost()) {
					throw hold.lostException();
				}
				return CompletableFuture.completedFuture(null);
			}
			LockLease lease = hold.lease();
			if (lease.isRevoked()) {
				LockLostException lost = revokedException(hold);
				observeRelease(hold, ReleaseOutcome.LOST, lost);
				throw lost;
			}
			String channel = lease.kind().channel(this.scripts.keys(), hold.key());
			long releasedAt = System.nanoTime();
			if (this.handOver.mayPass(hold) && this.handOver.passWithoutWaiting(hold, channel)) {
				return this.handOver.held(lease, releasedAt).handle((held, ex) -> {
					if (ex != null || !held || lease.isLost()) {
						throw passedLost(hold);
					}
					observeRelease(hold, ReleaseOutcome.RELEASED, null);
					return null;
				});
			}
			this.releasing.incrementAndGet();
			boolean sent = false;
			try {
				leaveForRelease(hold, lease);
				CompletableFuture<Void> done = new CompletableFuture<>();
				CompletableFuture<Void> result = new CompletableFuture<>();
				done.whenComplete((ignored, ex) -> {
					this.releasing.decrementAndGet();
					if (ex != null) {
						result.completeExceptionally(ex);
					}
					else {
						result.complete(null);
					}
				});
				sent = true;
				sendRelease(hold, lease, channel, housekeeping, System.nanoTime() + MIGRATION_GIVE_UP_NANOS, done);
				return result;
			}
			finally {
				if (!sent) {
					this.releasing.decrementAndGet();
				}
			}
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private void sendRelease(LockHold hold, LockLease lease, String channel, Housekeeping housekeeping, long giveUpAt,
			CompletableFuture<Void> done) {
		LockKind kind = lease.kind();
		CompletionStage<Long> answer;
		try {
			answer = this.scripts.executeAsync(kind.releaseCall(this.scripts, hold.key(), lease.owner(),
					lease.fencingToken(), hold.fencingToken()), housekeeping::execute);
		}
		catch (RuntimeException ex) {
			answer = CompletableFuture.failedFuture(ex);
		}
		answer.whenComplete((reply, failure) -> {
			try {
				if (failure == null) {
					released(hold, lease, channel, LockKind.releaseOutcome(reply));
					done.complete(null);
					return;
				}
				Throwable ex = ScriptCommands.unwrap(failure);
				if (SlotMigration.isMigrating(ex) && System.nanoTime() - giveUpAt <= 0) {
					housekeeping.schedule(() -> sendRelease(hold, lease, channel, housekeeping, giveUpAt, done),
							SlotMigration.RETRY_NANOS);
					return;
				}
				throw releaseFailed(hold, lease, ex);
			}
			catch (RuntimeException ex) {
				done.completeExceptionally(ex);
			}
		});
	}

	/**
	 * Take the last hold of a lease out of the engine's holds and the watchdog before its
	 * release script runs.
	 */
	private void leaveForRelease(LockHold hold, LockLease lease) {
		this.locks.released(hold);
		this.watchdog.unwatch(lease);
	}

	/**
	 * A release script that failed: Redis may not have run it, so it is sent again in the
	 * background, or the lock would stay held for the rest of its lease.
	 * @return the exception for the caller
	 */
	private LockAccessException releaseFailed(LockHold hold, LockLease lease, Throwable ex) {
		this.backgroundReleases.giveBack(lease.kind(), hold.key(), lease.owner(), hold.fencingToken(),
				Math.max(0, TimeUnit.NANOSECONDS.toMillis(lease.expiresAtNanos() - System.nanoTime())));
		LockAccessException failure = new LockAccessException(hold.key(), "release", ex);
		observeRelease(hold, ReleaseOutcome.FAILED, failure);
		return failure;
	}

	/**
	 * What the release script's answer means: waiters of this JVM are woken or yield, and
	 * a lock found gone is reported lost.
	 * @throws LockLostException when the lock was lost while held
	 */
	private void released(LockHold hold, LockLease lease, String channel, long outcome) {
		// For a kind that yields, this JVM's own release message wakes nobody here; for
		// the others, it wakes the waiters it names, and those of this JVM of another
		// kind sharing the key (a fair lock's release and an exclusive waiter) only
		// through another JVM. So one local waiter asks at once, or when the yield to
		// other JVMs ends; for a lock found lost, which may be free, too.
		if (lease.kind().yields() && outcome > 0) {
			this.locks.yieldFor(channel, YIELD_NANOS);
		}
		this.locks.wakeOne(channel);
		if (outcome < 0 || lease.isLost()) {
			boolean found = lease.markLost();
			LockLostException lost = hold.lostException();
			if (found && this.observer != null) {
				this.observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
			observeRelease(hold, ReleaseOutcome.LOST, lost);
			throw lost;
		}
		observeRelease(hold, ReleaseOutcome.RELEASED, null);
	}

	/**
	 * Release holds in Redis as the engine shuts down, while their holders still run:
	 * each finds its lock lost. The scripts of all of them are sent at once and their
	 * answers awaited together, so that a JVM holding many locks gives them back in about
	 * one round trip rather than one each. A release that failed or got no answer is sent
	 * once more on its own; one that fails again is logged, and its lock expires with its
	 * lease.
	 * @return the holds released by this call, in the order given
	 */
	List<LockHold> revokeAll(List<LockHold> holds) {
		List<LockHold> revoked = new ArrayList<>();
		List<PreparedCall<Long>> calls = new ArrayList<>();
		for (LockHold hold : holds) {
			LockLease lease = hold.lease();
			if (!lease.revoke()) {
				continue;
			}
			this.locks.released(hold);
			this.watchdog.unwatch(lease);
			if (this.observer != null && !hold.isReleased()) {
				// A vacant hold has no holder to tell.
				this.observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
			revoked.add(hold);
			calls.add(ScriptBatches.prepare(lease.kind()
				.releaseCall(this.scripts, hold.key(), lease.owner(), lease.fencingToken(), hold.fencingToken())));
		}
		for (int first = 0; first < calls.size(); first += RELEASE_BATCH) {
			int end = Math.min(first + RELEASE_BATCH, calls.size());
			BatchAnswers answers = new BatchAnswers(end - first);
			try {
				this.scripts.executeAllAsync(calls.subList(first, end), answers.list());
				answers.await(this.scripts.commands().answerTimeoutMillis());
			}
			catch (RuntimeException ex) {
				logger.debug("Could not send the releases of the locks still held together; sending them one by one",
						ex);
			}
			for (int i = first; i < end; i++) {
				if (!answers.succeeded(i - first)) {
					revokeAgain(revoked.get(i));
				}
			}
		}
		return revoked;
	}

	private void revokeAgain(LockHold hold) {
		try {
			releaseInRedis(hold.lease().kind(), hold);
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format(
					"Could not release lock '%s' as the engine shut down; it expires with its lease", hold.key()), ex);
		}
	}

	/**
	 * A holder that passed its lock on, told that a check after its release began found
	 * the grant gone: its work may have overlapped another owner's.
	 */
	private LockLostException passedLost(LockHold hold) {
		LockLostException lost = hold.lostException();
		observeRelease(hold, ReleaseOutcome.LOST, lost);
		return lost;
	}

	private static LockLostException revokedException(LockHold hold) {
		return new LockLostException(hold.key(), hold.fencingToken(), "Lock '" + hold.key() + "' (fencing token "
				+ hold.fencingToken() + ") was released while held, because the application shut down and its holder "
				+ "did not finish within the grace time, so the work done under it may have overlapped with another "
				+ "owner; finish or stop the work within spring.lifecycle.timeout-per-shutdown-phase (or the grace "
				+ "given to LockTemplate.shutdown)", !hold.lease().claimLossReport());
	}

	/**
	 * Release a hold nobody will use, such as one granted to an acquisition that had
	 * ended; a failure leaves it to a background release.
	 */
	void releaseQuietly(LockHold hold) {
		try {
			release(hold);
		}
		catch (LockLostException ex) {
			logger.debug(LogMessage.format("Lock '%s', granted to an acquisition that ended, was lost meanwhile",
					hold.key()), ex);
		}
		catch (RuntimeException ex) {
			LockLease lease = hold.lease();
			this.backgroundReleases.giveBack(lease.kind(), lease.key(), lease.owner(), hold.fencingToken(),
					lease.leaseMillis());
		}
	}

	/**
	 * Run the release script, again for a while if the lock's cluster slot is being
	 * migrated: the lock would otherwise stay held until its lease ends.
	 */
	private long releaseInRedis(LockKind kind, LockHold hold) {
		long giveUpAt = System.nanoTime() + MIGRATION_GIVE_UP_NANOS;
		while (true) {
			try {
				return kind.release(this.scripts, hold.key(), hold.lease().owner(), hold.lease().fencingToken(),
						hold.fencingToken());
			}
			catch (RuntimeException ex) {
				if (!SlotMigration.isMigrating(ex) || System.nanoTime() - giveUpAt > 0) {
					throw ex;
				}
				LockSupport.parkNanos(SlotMigration.RETRY_NANOS);
			}
		}
	}

	private void observeRelease(LockHold hold, ReleaseOutcome outcome, @Nullable Throwable failure) {
		LockObserver observer = this.observer;
		if (observer != null) {
			observer.released(hold.key(), hold.observerContext(), outcome, failure);
		}
	}

}
