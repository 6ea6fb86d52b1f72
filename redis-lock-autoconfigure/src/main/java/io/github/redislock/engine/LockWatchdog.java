package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * Renews the leases that have no fixed length, from one scheduler thread that never waits
 * for Redis, and decides each lease's fate from its renewals' outcomes.
 *
 * <h2>Design notes</h2>
 *
 * No timer per lock: the {@link RenewalSchedule} hands each tick the due leases, and the
 * {@link RenewalWindow} sends them without waiting for the answers (see their design
 * notes). An answer is recorded on the client's thread ({@link LeaseRenewal.Attempt}) and
 * taken by the next tick:
 * <ul>
 * <li>renewed: the expiry moves to the time the renewal was <em>sent</em> plus the lease,
 * since Redis may have run it at any moment after that; the lease is due again an
 * interval after that send;</li>
 * <li>not the owner any more (the lock expired, Redis lost it, or its key was
 * overwritten): the lease is marked lost, a warning names the key, and the holder learns
 * it from {@code isHeld()} and at release;</li>
 * <li>Redis failed: the renewal is sent again a tenth of an interval later.</li>
 * </ul>
 * A lease has one renewal in flight at most. One unanswered past the engine's own
 * deadline ({@link #answerDeadlineNanos()}) counts as failed and is sent again at once,
 * since Lettuce may route it to a shard's new primary ({@code StalledShardTests}); the
 * client's command timeout, a minute by default, is twice the default lease. The stalled
 * renewal may still run later: harmless, renewals are owner-checked. A lease whose last
 * known expiry passes is marked lost whatever its renewals do: the lock has surely
 * expired in Redis by then.
 *
 * <p>
 * A lease released while its renewal is in flight is harmless: the release unwatched it
 * first, so a renewal that finds its key gone reports no loss. Warnings and observer
 * reports are made on the tick thread, so that neither holds up the client's thread.
 *
 * @author redis-lock
 */
final class LockWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	/** The next tick's delay while due renewals wait for room in the window. */
	private static final long BACKLOG_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/** Renewals that fit, each with its deadline, in what is left of a lease when due. */
	private static final long RENEWALS_IN_ROOM = 3;

	/** What is left of a lease at its renewal, below which a warning is logged. */
	private static final Duration SHORTEST_ROOM = Duration.ofSeconds(1);

	private final long renewIntervalNanos;

	private final long answerDeadlineNanos;

	private final long tickNanos;

	private final RenewalSchedule schedule;

	private final RenewalWindow window;

	private final LeaseEvents events;

	private final ScheduledExecutorService scheduler;

	/** Start renewing leases of the given length every renew interval. */
	LockWatchdog(LockScripts scripts, Duration lease, Duration renewInterval, LeaseEvents events) {
		long leaseNanos = lease.toNanos();
		this.renewIntervalNanos = renewInterval.toNanos();
		this.answerDeadlineNanos = Math.min((leaseNanos - this.renewIntervalNanos) / RENEWALS_IN_ROOM,
				TimeUnit.MILLISECONDS.toNanos(scripts.replayWindowMillis()));
		this.window = new RenewalWindow(scripts,
				Math.min(this.renewIntervalNanos / 4, TimeUnit.MILLISECONDS.toNanos(250)), this.answerDeadlineNanos);
		this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
				Math.min(this.renewIntervalNanos / 10, TimeUnit.SECONDS.toNanos(1)));
		this.schedule = new RenewalSchedule(this.tickNanos, leaseNanos, this.renewIntervalNanos, System.nanoTime());
		this.events = events;
		this.scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.schedule(this::tick, this.tickNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Warn, as the engine is made, when what is left of a lease at its renewal is too
	 * short to ride out an occasional delay, which would lose the lock with Redis and the
	 * holder alive.
	 */
	static void warnIfRenewalRoomIsShort(Duration lease, Duration renewInterval) {
		Duration room = lease.minus(renewInterval);
		if (room.compareTo(SHORTEST_ROOM) < 0) {
			logger.warn(LogMessage.format("What is left of a lock's lease when the watchdog renews it "
					+ "(redis-lock.watchdog.lease %s minus redis-lock.watchdog.renew-interval %s = %s) is under %s: "
					+ "a renewal that Redis answers that late (a fork for a snapshot, a failover, a pause of the "
					+ "collector) loses the lock. Lengthen redis-lock.watchdog.lease or shorten "
					+ "redis-lock.watchdog.renew-interval.", lease, renewInterval, room, SHORTEST_ROOM));
		}
	}

	/**
	 * How long the engine waits for the answer to a command of its own (a renewal, a
	 * release, the shutdown's releases) before it counts it as unanswered: a third of
	 * what is left of a lease when its renewal is due, so that two retries still come in
	 * time, or the client's command timeout and a margin if shorter. About 6.7 s with the
	 * defaults (a 30 s lease renewed every 10 s).
	 */
	long answerDeadlineNanos() {
		return this.answerDeadlineNanos;
	}

	void watch(LockLease lease) {
		this.schedule.watch(lease);
	}

	void rescheduleIfWatched(LockLease lease) {
		this.schedule.rescheduleIfWatched(lease);
	}

	void unwatch(LockLease lease) {
		this.schedule.unwatch(lease);
	}

	int watchedCount() {
		return this.schedule.watchedCount();
	}

	/** How many leases are scheduled, released ones included; for tests. */
	int scheduledCount() throws InterruptedException, ExecutionException {
		return this.scheduler.submit(this.schedule::size).get();
	}

	private void tick() {
		boolean backlog = false;
		try {
			long now = System.nanoTime();
			this.window.settle(now, this);
			this.schedule.advance(now);
			backlog = this.window.sendDue(this.schedule, now, this);
		}
		catch (RuntimeException ex) {
			logger.warn("redis-lock watchdog tick failed", ex);
		}
		try {
			this.scheduler.schedule(this::tick, backlog ? BACKLOG_TICK_NANOS : this.tickNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed.
		}
	}

	/** A renewal was answered, in time or not. */
	void answered(LeaseRenewal.Attempt attempt) {
		LeaseRenewal renewal = attempt.renewal();
		Throwable failure = attempt.failure();
		if (failure != null) {
			if (attempt.isAwaited()) {
				failed(renewal, failure, attempt.sentAt() + this.renewIntervalNanos / 10);
			}
		}
		else if (attempt.isRenewed()) {
			this.events.renewed(renewal.lease());
			if (attempt.isAwaited() && renewal.isWatched()) {
				this.schedule.add(renewal, attempt.sentAt() + this.renewIntervalNanos);
			}
		}
		else if (this.schedule.lose(renewal)) {
			reportLost(renewal.lease(), "it expired or was taken over in Redis");
		}
	}

	/** A renewal failed or passed its deadline: send it again at the given time. */
	void failed(LeaseRenewal renewal, Throwable failure, long retryAt) {
		if (!renewal.isWatched()) {
			return;
		}
		renewal.failed(failure);
		LockLease lease = renewal.lease();
		logger.debug(LogMessage.format("Could not renew lock '%s'; trying again", lease.key()), failure);
		this.events.renewalFailed(lease, (failure instanceof RuntimeException runtime) ? runtime
				: new RedisException("Could not renew lock '" + lease.key() + "'", failure));
		this.schedule.add(renewal, retryAt);
	}

	/** The lease ran out before its renewal was sent or answered. */
	void expired(LeaseRenewal renewal) {
		if (this.schedule.lose(renewal)) {
			Throwable failure = renewal.lastFailure();
			reportLost(renewal.lease(), (failure != null)
					? "Redis could not be reached to renew it before its lease ran out (" + failure.getMessage() + ")"
					: "Redis did not answer its renewal before its lease ran out");
		}
	}

	private void reportLost(LockLease lease, String reason) {
		if (lease.claimLossReport()) {
			HandOver.warnLost(logger, lease.key(), lease.fencingToken(), reason);
		}
		this.events.lost(lease);
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	/** What the watchdog finds about the leases it renews, told on its tick thread. */
	interface LeaseEvents {

		void renewed(LockLease lease);

		/** Redis could not be reached to renew the lease; it is tried again. */
		void renewalFailed(LockLease lease, RuntimeException ex);

		/** The lease was found lost, and marked so by this call. */
		void lost(LockLease lease);

		/**
		 * Passes the events on to the observer's, and wakes a local waiter of a lease
		 * found lost: the lock may be free in Redis, and the waiters of this JVM would
		 * otherwise sleep until the lost holder's release or the end of the lease they
		 * last saw.
		 */
		record Waking(LocalLocks locks, @Nullable LeaseEvents observed) implements LeaseEvents {

			@Override
			public void renewed(LockLease lease) {
				if (this.observed != null) {
					this.observed.renewed(lease);
				}
			}

			@Override
			public void renewalFailed(LockLease lease, RuntimeException ex) {
				if (this.observed != null) {
					this.observed.renewalFailed(lease, ex);
				}
			}

			@Override
			public void lost(LockLease lease) {
				if (this.observed != null) {
					this.observed.lost(lease);
				}
				this.locks.wakeOne(this.locks.channel(lease.kind(), lease.key()));
			}

		}

	}

}
