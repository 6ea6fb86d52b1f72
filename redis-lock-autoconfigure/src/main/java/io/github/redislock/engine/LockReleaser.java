package io.github.redislock.engine;

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

/**
 * The release path: a handle closed, the hold's count goes down, and the last handle
 * releases the lock, by a hand-over to a local waiter or else in Redis.
 *
 * <p>
 * Ordering: the hold leaves {@link LocalHolds} and the watchdog before the release script
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

	/** How long a release refused during a slot migration is sent again. */
	private static final long MIGRATION_GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final LockScripts scripts;

	private final LocalHolds holds;

	private final LockWatchdog watchdog;

	private final ReleaseSubscriptions subscriptions;

	private final LocalHandOver handOver;

	private final BackgroundReleases backgroundReleases;

	private final @Nullable LockObserver observer;

	private final AtomicInteger releasing = new AtomicInteger();

	LockReleaser(LockScripts scripts, LocalHolds holds, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
			LocalHandOver handOver, BackgroundReleases backgroundReleases, @Nullable LockObserver observer) {
		this.scripts = scripts;
		this.holds = holds;
		this.watchdog = watchdog;
		this.subscriptions = subscriptions;
		this.handOver = handOver;
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
				throw new LockLostException(hold.key(), hold.fencingToken());
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
	 * Number of releases under way: the hold has left {@link LocalHolds} but the script
	 * may not have answered yet, so a shutdown must not close the connection.
	 */
	int releasesInFlight() {
		return this.releasing.get();
	}

	private void releaseLast(LockHold hold, LockLease lease) {
		LockKind kind = lease.kind();
		String channel = kind.channel(this.scripts.keys(), hold.key());
		if (this.handOver.handOver(hold, channel)) {
			observeRelease(hold, ReleaseOutcome.RELEASED, null);
			return;
		}
		this.holds.released(hold);
		this.watchdog.unwatch(lease);
		long outcome;
		try {
			outcome = releaseInRedis(kind, hold);
		}
		catch (RuntimeException ex) {
			// Redis may not have run it: keep trying in the background, or the lock would
			// stay held for the rest of its lease.
			this.backgroundReleases.giveBack(kind, hold.key(), lease.owner(),
					Math.max(0, TimeUnit.NANOSECONDS.toMillis(lease.expiresAtNanos() - System.nanoTime())));
			LockAccessException failure = new LockAccessException(hold.key(), "release", ex);
			observeRelease(hold, ReleaseOutcome.FAILED, failure);
			throw failure;
		}
		if (outcome >= 0 && kind.yields()) {
			this.subscriptions.releasedHere(channel, outcome > 0, YIELD_NANOS);
		}
		if (outcome < 0 || lease.isLost()) {
			boolean found = lease.markLost();
			LockLostException lost = new LockLostException(hold.key(), hold.fencingToken());
			if (found && this.observer != null) {
				this.observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
			observeRelease(hold, ReleaseOutcome.LOST, lost);
			throw lost;
		}
		observeRelease(hold, ReleaseOutcome.RELEASED, null);
	}

	/**
	 * Release a hold in Redis as the engine shuts down, while its holder still runs: it
	 * finds the lock lost. A failure is logged; the lock then expires with its lease.
	 * @return whether the lease was released by this call
	 */
	boolean revoke(LockHold hold) {
		LockLease lease = hold.lease();
		if (!lease.revoke()) {
			return false;
		}
		this.holds.released(hold);
		this.watchdog.unwatch(lease);
		if (this.observer != null) {
			this.observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
		}
		try {
			releaseInRedis(lease.kind(), hold);
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format(
					"Could not release lock '%s' as the engine shut down; it expires with its lease", hold.key()), ex);
		}
		return true;
	}

	private static LockLostException revokedException(LockHold hold) {
		return new LockLostException(hold.key(), hold.fencingToken(), "Lock '" + hold.key() + "' (fencing token "
				+ hold.fencingToken() + ") was released while held, because the application shut down and its holder "
				+ "did not finish within the grace time, so the work done under it may have overlapped with another "
				+ "owner; finish or stop the work within spring.lifecycle.timeout-per-shutdown-phase (or the grace "
				+ "given to LockTemplate.shutdown)");
	}

	/**
	 * Release a hold nobody will use, such as one handed to a waiter that had left; a
	 * failure leaves it to a background release.
	 */
	void releaseQuietly(LockHold hold) {
		try {
			release(hold);
		}
		catch (LockLostException ex) {
			logger.debug(
					LogMessage.format("Lock '%s', handed to a waiter that had left, was lost meanwhile", hold.key()),
					ex);
		}
		catch (RuntimeException ex) {
			LockLease lease = hold.lease();
			this.backgroundReleases.giveBack(lease.kind(), lease.key(), lease.owner(), lease.leaseMillis());
		}
	}

	/**
	 * Run the release script, again for a while if the lock's cluster slot is being
	 * migrated: the lock would otherwise stay held until its lease ends.
	 */
	private long releaseInRedis(LockKind kind, LockHold hold) {
		long lastToken = (hold.handoffs() > 0) ? hold.fencingToken() : 0;
		long giveUpAt = System.nanoTime() + MIGRATION_GIVE_UP_NANOS;
		while (true) {
			try {
				return kind.release(this.scripts, hold.key(), hold.lease().owner(), lastToken);
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
