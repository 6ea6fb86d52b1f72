package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * Renews the leases that have no fixed length, from one scheduler thread that never waits
 * for Redis.
 *
 * <h2>Design notes</h2>
 *
 * There is no timer per lock: a lease is due for renewal a renewal interval after its
 * last renewal was sent (or its grant requested), and a {@link RenewalSchedule} hands the
 * tick thread the leases that fell due since its last tick, a tenth of the interval
 * apart. The tick sends their renewals together, pipelined and written to the connection
 * in batches, and goes on without waiting for the answers: a slow answer, such as one
 * from a stalled cluster shard, holds up no other renewal. One script call renews up to a
 * {@linkplain RenewalChunks chunk} of leases (of one slot on a cluster), each
 * owner-checked as by its kind's renew script alone, so many held locks cost a call per
 * chunk rather than per lock; each lease still has an outcome of its own.
 *
 * <p>
 * An answer is recorded on the Redis client's thread and taken by the next tick, in the
 * order the renewals were sent; it decides the lease's fate:
 * <ul>
 * <li>renewed: the lease's expiry moves (at once, on the client's thread) to the time the
 * renewal was <em>sent</em> plus the lease length, since Redis may have run it at any
 * moment after that; the lease is due again an interval after that send;</li>
 * <li>not the owner any more: the lock expired or Redis lost it. The lease is marked
 * lost, a warning names the key, and the holder learns it from {@code isHeld()} and at
 * release;</li>
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
 * <b>Many leases.</b> Since a lease's expiry counts from when its renewal was sent, a
 * renewal that waits long in the client's queue is worth little. So no more than
 * {@value RenewalWindow#WINDOW} renewals are in flight at once; when Redis answers more
 * slowly than leases fall due, the due leases wait in the schedule, oldest first, rather
 * than in the connection, and each is renewed less often but always with a fresh answer.
 * A renewal in flight for longer than a quarter of an interval stops counting against
 * that window: it waits for a stalled server, and the renewals for the others go on.
 * While due renewals outnumber the room, they are sent once half a batch fits, or a few
 * milliseconds later ({@link RenewalPacing}), rather than a chunk at a time as answers
 * free the room.
 *
 * <p>
 * The watchdog renews leases, the grants Redis made, whose holds count their reentrant
 * handles. A lease released while its renewal is in flight is harmless: the renewal
 * either extends a lock that is about to be deleted by its owner, or finds it gone; the
 * release unwatched the lease before deleting the key, so that finding is not reported as
 * a loss.
 *
 * <p>
 * Answers only record what they found: the warnings and the reports to the engine's
 * observer are made on the tick thread, so that neither a slow appender nor an observer
 * holds up the client's thread. The tick thread does nothing else; the engine's
 * background work runs on the engine's executor, {@link EngineThreads}.
 *
 * <p>
 * The state of each lease's renewals is a {@link LeaseRenewal}, each renewal sent a
 * {@link RenewalAttempt}; the renewals in flight are counted and settled by a
 * {@link RenewalWindow}, and due ones wait in a {@link RenewalSchedule}.
 *
 * @author redis-lock
 */
final class LockWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	/**
	 * How soon the next tick comes while due renewals wait for room in the window, which
	 * answers free as they arrive.
	 */
	private static final long BACKLOG_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/**
	 * Leases whose renewals are written to the connection at once, in chunks: enough to
	 * spare a system call per chunk, few enough that other commands get their turn
	 * between batches.
	 */
	private static final int BATCH = 1000;

	/**
	 * How many released leases the schedule may hold beyond the watched ones before they
	 * are dropped: a pass over a small schedule is not worth making.
	 */
	private static final int DROP_SLACK = 1024;

	/**
	 * Renewals of a lease that fit, each with its deadline, in what is left when it is
	 * due.
	 */
	private static final long RENEWALS_IN_ROOM = 3;

	/**
	 * What is left of a lease when its renewal is due, below which a warning is logged.
	 */
	private static final Duration SHORTEST_ROOM = Duration.ofSeconds(1);

	/** Sends the renewals, many leases to a script call. */
	private final RenewalChunks chunks;

	private final long leaseNanos;

	private final long renewIntervalNanos;

	private final long answerDeadlineNanos;

	private final long tickNanos;

	/** The watched leases, each with the state of its renewals. */
	private final ConcurrentHashMap<LockLease, LeaseRenewal> watched = new ConcurrentHashMap<>();

	/** Leases watched since the last tick. */
	private final Queue<LeaseRenewal> added = new ConcurrentLinkedQueue<>();

	/** The tick thread's own: when each lease not in flight is due. */
	private final RenewalSchedule<LeaseRenewal> schedule;

	/** The tick thread's own, but for its count: the renewals in flight. */
	private final RenewalWindow window;

	/** Decides when due renewals that outnumber the window's room are sent. */
	private final RenewalPacing pacing;

	/** Decides each lease's fate from its renewals' outcomes. */
	private final RenewalOutcomes outcomes;

	private final ScheduledExecutorService scheduler;

	/**
	 * Start renewing.
	 * @param scripts sends the renewals
	 * @param lease the lease of a renewed grant
	 * @param renewInterval how often a lease is renewed
	 * @param events told of renewals and losses, or {@code null}
	 */
	LockWatchdog(LockScripts scripts, Duration lease, Duration renewInterval, @Nullable LeaseEvents events) {
		warnIfRenewalRoomIsShort(lease, renewInterval);
		this.chunks = new RenewalChunks(scripts);
		this.leaseNanos = lease.toNanos();
		this.renewIntervalNanos = renewInterval.toNanos();
		this.answerDeadlineNanos = Math.min((this.leaseNanos - this.renewIntervalNanos) / RENEWALS_IN_ROOM,
				TimeUnit.MILLISECONDS.toNanos(scripts.commands().answerTimeoutMillis()));
		this.window = new RenewalWindow(Math.min(this.renewIntervalNanos / 4, TimeUnit.MILLISECONDS.toNanos(250)),
				this.answerDeadlineNanos);
		this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
				Math.min(this.renewIntervalNanos / 10, TimeUnit.SECONDS.toNanos(1)));
		this.schedule = new RenewalSchedule<>(this.tickNanos, this.renewIntervalNanos, System.nanoTime());
		this.pacing = new RenewalPacing(BATCH, this.renewIntervalNanos);
		this.outcomes = new RenewalOutcomes(this.watched, this.schedule, this.renewIntervalNanos, events);
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
	 * the engine waits for a renewal by a deadline of its own.
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
		LeaseRenewal renewal = new LeaseRenewal(lease);
		LeaseRenewal replaced = this.watched.put(lease, renewal);
		if (replaced != null) {
			replaced.unwatch();
		}
		this.added.add(renewal);
	}

	/**
	 * Schedule the lease's next renewal anew from its expiry as it is now, if it is still
	 * watched: after an explicit extension, which may have shortened it below what the
	 * renewal scheduled from the last one would find left.
	 */
	void rescheduleIfWatched(LockLease lease) {
		this.watched.computeIfPresent(lease, (watchedLease, previous) -> {
			previous.unwatch();
			LeaseRenewal renewal = new LeaseRenewal(watchedLease);
			this.added.add(renewal);
			return renewal;
		});
	}

	void unwatch(LockLease lease) {
		LeaseRenewal renewal = this.watched.remove(lease);
		if (renewal != null) {
			renewal.unwatch();
		}
	}

	int watchedCount() {
		return this.watched.size();
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
			LeaseRenewal renewal;
			while ((renewal = this.added.poll()) != null) {
				if (!renewal.isWatched()) {
					// Released since the last tick, as most short holds are.
					continue;
				}
				// The lease runs from when the grant was requested, not from when its
				// answer arrived: a slow answer leaves less of it, and the first renewal
				// comes sooner.
				this.schedule.add(renewal,
						renewal.lease().expiresAtNanos() - this.leaseNanos + this.renewIntervalNanos);
			}
			dropReleased();
			this.window.settle(now, this.outcomes);
			this.schedule.advance(now);
			backlog = sendDue(now);
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

	/**
	 * Drop the leases released since they were scheduled, once they outnumber the watched
	 * ones. A released lease is otherwise dropped only when it falls due, a renew
	 * interval after it was scheduled, and a JVM that takes many short locks would keep
	 * every lease of the last interval reachable (a hundred bytes or so each: 13,000
	 * locks a second kept 1.3 MB a second of them). One pass over the schedule per
	 * doubling keeps the cost per released lease constant.
	 */
	private void dropReleased() {
		if (this.schedule.size() > 2 * this.watched.size() + DROP_SLACK) {
			this.schedule.removeIf((renewal) -> !renewal.isWatched());
		}
	}

	/**
	 * Send the renewals that are due, as many as the window lets through.
	 * @return whether due renewals are left for lack of room in the window
	 */
	private boolean sendDue(long now) {
		int room = this.window.room();
		if (this.pacing.holdBack(room, this.schedule.dueCount(), now)) {
			return true;
		}
		List<LeaseRenewal> batch = new ArrayList<>(Math.min(Math.max(room, 0), BATCH));
		LeaseRenewal renewal;
		while (room > 0 && (renewal = this.schedule.pollDue()) != null) {
			if (!renewal.isWatched()) {
				continue;
			}
			if (now - renewal.lease().expiresAtNanos() >= 0) {
				this.outcomes.expired(renewal);
				continue;
			}
			batch.add(renewal);
			room--;
			if (batch.size() == BATCH) {
				send(batch, now);
				batch.clear();
			}
		}
		if (!batch.isEmpty()) {
			send(batch, now);
		}
		return room <= 0 && this.schedule.hasDue();
	}

	private void send(List<LeaseRenewal> batch, long now) {
		long sentAt = (now != LeaseRenewal.NONE) ? now : now + 1;
		List<RenewalAttempt> attempts = this.window.sent(batch, sentAt);
		try {
			this.chunks.send(attempts);
		}
		catch (RuntimeException ex) {
			for (RenewalAttempt attempt : attempts) {
				attempt.answered(null, ex);
			}
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
