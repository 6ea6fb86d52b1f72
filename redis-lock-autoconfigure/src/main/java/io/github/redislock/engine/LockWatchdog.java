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
 * There is no timer per lock: a lease is due for renewal a renewal interval after its
 * last renewal was sent (or its grant requested), and a {@link RenewalSchedule} hands the
 * tick thread the leases that fell due since its last tick, a tenth of the interval
 * apart. The tick sends their renewals together, many leases to a script call, and goes
 * on without waiting for the answers ({@link RenewalWindow}: how many are in flight, and
 * how they are chunked): a slow answer, such as one from a stalled cluster shard, holds
 * up no other renewal.
 *
 * <p>
 * An answer is recorded on the Redis client's thread ({@link LeaseRenewal.Attempt}) and
 * taken by the next tick, in the order the renewals were sent; it decides the lease's
 * fate:
 * <ul>
 * <li>renewed: the lease's expiry moves (at once, on the client's thread) to the time the
 * renewal was <em>sent</em> plus the lease length, since Redis may have run it at any
 * moment after that; the lease is due again an interval after that send;</li>
 * <li>not the owner any more: the lock expired, Redis lost it, or something else was
 * written at its key. The lease is marked lost, a warning names the key, and the holder
 * learns it from {@code isHeld()} and at release;</li>
 * <li>Redis failed: the renewal is sent again a tenth of an interval later.</li>
 * </ul>
 * A lease has one renewal in flight at most. One left unanswered past the engine's own
 * deadline ({@link #answerDeadlineNanos()}) counts as failed and is sent again at once:
 * Lettuce may have routed it to a shard that has since failed over, and the new route
 * reaches the new primary. The deadline is the engine's, not the client's command
 * timeout: Lettuce's default and Spring Boot's, a minute, is twice the default lease, so
 * a renewal it waited for would come too late to keep the lock. What the command timeout
 * still governs: the first renewal stays queued in the client until Redis answers it or
 * the timeout ends it, and may still run (harmless: the renewal is owner-checked, and a
 * late one only lengthens what this JVM believes); a renewal sent again on the same
 * connection, to a single server or to a shard whose primary did not change, queues
 * behind the stalled one, so there the retry helps only once the connection is replaced.
 * Whatever happens to its renewals, a lease whose last known expiry passes is marked
 * lost: by then the lock has surely expired in Redis, even though Redis never said so.
 *
 * <p>
 * The watchdog renews leases, the grants Redis made, whose holds count their reentrant
 * handles. A lease released while its renewal is in flight is harmless: the renewal
 * either extends a lock that is about to be deleted by its owner, or finds it gone; the
 * release unwatched the lease before deleting the key, so that finding is not reported as
 * a loss. The warnings and the reports to the engine's observer are made on the tick
 * thread, so that neither a slow appender nor an observer holds up the client's thread.
 * The tick thread does nothing else; the engine's background work runs on the engine's
 * executor, {@link EngineThreads}.
 *
 * @author redis-lock
 */
final class LockWatchdog implements RenewalWindow.Settled, AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	/**
	 * How soon the next tick comes while due renewals wait for room in the window, which
	 * answers free as they arrive.
	 */
	private static final long BACKLOG_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/**
	 * Renewals of a lease that fit, each with its deadline, in what is left when it is
	 * due.
	 */
	private static final long RENEWALS_IN_ROOM = 3;

	/**
	 * What is left of a lease when its renewal is due, below which a warning is logged.
	 */
	private static final Duration SHORTEST_ROOM = Duration.ofSeconds(1);

	private final long renewIntervalNanos;

	private final long answerDeadlineNanos;

	private final long tickNanos;

	/** The watched leases, and when each not in flight is due. */
	private final RenewalSchedule schedule;

	/** The tick thread's own, but for its count: the renewals in flight. */
	private final RenewalWindow window;

	/** Told of renewals and losses, for the engine's observer; null when none. */
	private final @Nullable LeaseEvents events;

	private final ScheduledExecutorService scheduler;

	/**
	 * Start renewing.
	 * @param scripts sends the renewals
	 * @param lease the lease of a renewed grant
	 * @param renewInterval how often a lease is renewed
	 * @param events told of renewals and losses, or {@code null}
	 */
	LockWatchdog(LockScripts scripts, Duration lease, Duration renewInterval, @Nullable LeaseEvents events) {
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
	 * Warn when what is left of a lease once its renewal is due is too short to ride out
	 * what delays an answer now and then: a fork for a snapshot of a large dataset, a
	 * failover, a long pause of the collector. Such a delay then loses the lock although
	 * Redis and the holder are both alive. The client's command timeout plays no part:
	 * the engine waits for a renewal by a deadline of its own. Called as the engine is
	 * made, so that the warning comes with the application's start, not its first lock.
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
	 * what is left of a watchdog lease when its renewal is due, so that a renewal sent
	 * again twice still comes before the lease runs out; or the client's command timeout,
	 * and a margin, when that is shorter. With the defaults, a lease of 30 seconds
	 * renewed every 10, it is about 6.7 seconds.
	 */
	long answerDeadlineNanos() {
		return this.answerDeadlineNanos;
	}

	void watch(LockLease lease) {
		this.schedule.watch(lease);
	}

	/**
	 * Schedule the lease's next renewal anew from its expiry as it is now, if it is still
	 * watched: after an explicit extension, which may have shortened it below what the
	 * renewal scheduled from the last one would find left.
	 */
	void rescheduleIfWatched(LockLease lease) {
		this.schedule.rescheduleIfWatched(lease);
	}

	void unwatch(LockLease lease) {
		this.schedule.unwatch(lease);
	}

	int watchedCount() {
		return this.schedule.watchedCount();
	}

	/**
	 * How many leases the tick thread has scheduled, released ones not yet dropped
	 * included; for tests, read on the tick thread.
	 */
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

	@Override
	public void answered(LeaseRenewal.Attempt attempt) {
		LeaseRenewal renewal = attempt.renewal();
		Throwable failure = attempt.failure();
		if (failure != null) {
			if (attempt.isAwaited()) {
				failed(renewal, failure, attempt.sentAt() + this.renewIntervalNanos / 10);
			}
		}
		else if (attempt.isRenewed()) {
			if (this.events != null) {
				this.events.renewed(renewal.lease());
			}
			if (attempt.isAwaited() && renewal.isWatched()) {
				this.schedule.add(renewal, attempt.sentAt() + this.renewIntervalNanos);
			}
		}
		else if (this.schedule.lose(renewal)) {
			reportLost(renewal.lease(), "it expired or was taken over in Redis");
		}
	}

	@Override
	public void failed(LeaseRenewal renewal, Throwable failure, long retryAt) {
		if (!renewal.isWatched()) {
			return;
		}
		renewal.failed(failure);
		LockLease lease = renewal.lease();
		logger.debug(LogMessage.format("Could not renew lock '%s'; trying again", lease.key()), failure);
		if (this.events != null) {
			this.events.renewalFailed(lease, (failure instanceof RuntimeException runtime) ? runtime
					: new RedisException("Could not renew lock '" + lease.key() + "'", failure));
		}
		this.schedule.add(renewal, retryAt);
	}

	@Override
	public void expired(LeaseRenewal renewal) {
		if (this.schedule.lose(renewal)) {
			Throwable failure = renewal.lastFailure();
			reportLost(renewal.lease(), (failure != null)
					? "Redis could not be reached to renew it before its lease ran out (" + failure.getMessage() + ")"
					: "Redis did not answer its renewal before its lease ran out");
		}
	}

	private void reportLost(LockLease lease, String reason) {
		// The one warning of the loss, unless its holder was told of it already.
		if (lease.claimLossReport()) {
			logger.warn(LogMessage.format("Lost lock '%s' (fencing token %s) while it was held: %s; work done under "
					+ "it is no longer exclusive. Its holder finds it lost from isHeld() and at release: stop the work, "
					+ "and fence its writes with the fencing token so that they are refused once another owner holds "
					+ "it", lease.key(), lease.fencingToken(), reason));
		}
		if (this.events != null) {
			this.events.lost(lease);
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
