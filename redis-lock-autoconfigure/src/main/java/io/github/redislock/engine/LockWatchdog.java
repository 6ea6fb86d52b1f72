package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.github.redislock.engine.ScriptCommands.Answer;
import io.github.redislock.engine.ScriptCommands.PreparedCall;

/**
 * Renews the leases that have no fixed length, from one scheduler thread that never waits
 * for Redis.
 *
 * <h2>Design notes</h2>
 *
 * There is no timer per lock: a lease is due for renewal a renewal interval after its
 * last renewal was sent (or its grant requested), and a {@link RenewalSchedule} hands the
 * tick thread the leases that fell due since its last tick, a tenth of the interval
 * apart. The tick sends their renewals (the owner-checked {@code renew.lua}) together,
 * pipelined and written to the connection in batches, and goes on without waiting for the
 * answers: a slow answer, such as one from a stalled cluster shard, holds up no other
 * renewal.
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
 * A lease has one renewal in flight at most. One left unanswered past its deadline (the
 * client's command timeout, and a margin) counts as failed and is sent again at once:
 * Lettuce may have routed it to a shard that has since failed over. Whatever happens to
 * its renewals, a lease whose last known expiry passes is marked lost: by then the lock
 * has surely expired in Redis, even though Redis never said so.
 *
 * <p>
 * <b>Many leases.</b> Since a lease's expiry counts from when its renewal was sent, a
 * renewal that waits long in the client's queue is worth little. So no more than
 * {@value #WINDOW} renewals are in flight at once; when Redis answers more slowly than
 * leases fall due, the due leases wait in the schedule, oldest first, rather than in the
 * connection, and each is renewed less often but always with a fresh answer. A renewal in
 * flight for longer than a quarter of an interval stops counting against that window: it
 * waits for a stalled server, and the renewals for the others go on.
 *
 * <p>
 * The watchdog renews leases, not holds: when a lease is handed from one local thread to
 * the next, its renewal schedule carries on unchanged. A lease released while its renewal
 * is in flight is harmless: the renewal either extends a lock that is about to be deleted
 * by its owner, or finds it gone; the release unwatched the lease before deleting the
 * key, so that finding is not reported as a loss.
 *
 * <p>
 * Answers only record what they found: the warnings and the reports to the engine's
 * observer are made on the tick thread, so that neither a slow appender nor an observer
 * holds up the client's thread. The tick thread does nothing else; the engine's
 * housekeeping runs on threads of its own, {@link Housekeeping}.
 *
 * @author redis-lock
 */
final class LockWatchdog implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LockWatchdog.class);

	/**
	 * Renewals in flight at most, not counting those that wait for a stalled server: few
	 * enough that a lock call sent meanwhile waits little behind them.
	 */
	static final int WINDOW = 1000;

	/**
	 * How soon the next tick comes while due renewals wait for room in the window, which
	 * answers free as they arrive.
	 */
	private static final long BACKLOG_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/**
	 * Renewals written to the connection at once: enough to spare a system call per
	 * renewal, few enough that other commands get their turn between batches.
	 */
	private static final int BATCH = 1000;

	private final LockScripts scripts;

	private final long leaseNanos;

	private final long renewIntervalNanos;

	/** How long a renewal may go unanswered before it counts as failed. */
	private final long deadlineNanos;

	/** How long a renewal counts against the {@link #WINDOW} at most. */
	private final long stallNanos;

	private final long tickNanos;

	/** The watched leases, each with the state of its renewals. */
	private final ConcurrentHashMap<LockLease, Renewal> watched = new ConcurrentHashMap<>();

	/** Leases watched since the last tick. */
	private final Queue<Renewal> added = new ConcurrentLinkedQueue<>();

	/** Renewals that count against the window now. */
	private final AtomicInteger inFlight = new AtomicInteger();

	/** The tick thread's own: when each lease not in flight is due. */
	private final RenewalSchedule<Renewal> schedule;

	/** The tick thread's own: renewals sent less than a stall ago, oldest first. */
	private final ArrayDeque<Attempt> young = new ArrayDeque<>();

	/** The tick thread's own: renewals unanswered for longer than a stall. */
	private final ArrayDeque<Attempt> stalled = new ArrayDeque<>();

	private final ScheduledExecutorService scheduler;

	/** Told of renewals and losses, for the engine's observer; null when none. */
	private final @Nullable LeaseEvents events;

	/**
	 * Start renewing.
	 * @param scripts sends the renewals
	 * @param lease the lease of a renewed grant
	 * @param renewInterval how often a lease is renewed
	 * @param events told of renewals and losses, or {@code null}
	 */
	LockWatchdog(LockScripts scripts, Duration lease, Duration renewInterval, @Nullable LeaseEvents events) {
		warnIfTimeoutDoesNotFit(scripts.commands().commandTimeoutMillis(), lease, renewInterval);
		this.scripts = scripts;
		this.events = events;
		this.leaseNanos = lease.toNanos();
		this.renewIntervalNanos = renewInterval.toNanos();
		this.deadlineNanos = TimeUnit.MILLISECONDS.toNanos(scripts.commands().answerTimeoutMillis());
		this.stallNanos = Math.min(this.renewIntervalNanos / 4, TimeUnit.MILLISECONDS.toNanos(250));
		this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1),
				Math.min(this.renewIntervalNanos / 10, TimeUnit.SECONDS.toNanos(1)));
		this.schedule = new RenewalSchedule<>(this.tickNanos, this.renewIntervalNanos, System.nanoTime());
		this.scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.schedule(this::tick, this.tickNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Warn when the client's command timeout does not fit in the lease left once a
	 * renewal is due. A renewal that gets no answer, from a primary that just failed say,
	 * is sent again only when the client gave up on it; if that is after the lease ran
	 * out, the lock is lost although the retry, routed to the new primary, would have
	 * kept it. Not an error: Lettuce's default timeout of a minute does not fit in the
	 * default lease of 30 seconds, and locks work with it as long as Redis answers.
	 */
	static void warnIfTimeoutDoesNotFit(long commandTimeoutMillis, Duration lease, Duration renewInterval) {
		Duration left = lease.minus(renewInterval);
		if (commandTimeoutMillis >= left.toMillis()) {
			logger.warn("The Redis command timeout (spring.data.redis.timeout, {}) does not fit in what is left of a "
					+ "lock's lease when the watchdog renews it (redis-lock.watchdog.lease {} minus "
					+ "redis-lock.watchdog.renew-interval {} = {}): a renewal that gets no answer, from a primary that "
					+ "just failed say, is sent again only after the lock has expired. Set spring.data.redis.timeout "
					+ "below {}, or lengthen redis-lock.watchdog.lease.", Duration.ofMillis(commandTimeoutMillis),
					lease, renewInterval, left, left);
		}
	}

	void watch(LockLease lease) {
		Renewal renewal = new Renewal(lease);
		Renewal replaced = this.watched.put(lease, renewal);
		if (replaced != null) {
			replaced.watched = false;
		}
		this.added.add(renewal);
	}

	void unwatch(LockLease lease) {
		Renewal renewal = this.watched.remove(lease);
		if (renewal != null) {
			renewal.watched = false;
		}
	}

	int watchedCount() {
		return this.watched.size();
	}

	private void tick() {
		boolean backlog = false;
		try {
			long now = System.nanoTime();
			Renewal renewal;
			while ((renewal = this.added.poll()) != null) {
				// The lease runs from when the grant was requested, not from when its
				// answer arrived: a slow answer leaves less of it, and the first renewal
				// comes sooner.
				this.schedule.add(renewal, renewal.lease.expiresAtNanos() - this.leaseNanos + this.renewIntervalNanos);
			}
			takeAnswers(now);
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
	 * Take the answers that arrived, in the order the renewals were sent; stop counting
	 * the renewals that wait for a stalled server, fail those past their deadline, and
	 * lose the leases that ran out meanwhile. An answer waits at most a stall behind an
	 * earlier renewal still unanswered, which is well before its lease is due again.
	 */
	private void takeAnswers(long now) {
		Attempt attempt;
		while ((attempt = this.young.peekFirst()) != null) {
			if (attempt.isAnswered()) {
				take(this.young.pollFirst(), now);
			}
			else if (now - attempt.sentAt >= this.stallNanos) {
				if (attempt.stall()) {
					this.inFlight.decrementAndGet();
				}
				this.stalled.addLast(this.young.pollFirst());
			}
			else {
				break;
			}
		}
		this.stalled.removeIf((stalled) -> {
			Renewal renewal = stalled.renewal;
			if (stalled.isAnswered()) {
				take(stalled, now);
				return true;
			}
			if (!renewal.watched) {
				return true;
			}
			if (now - stalled.sentAt >= this.deadlineNanos && renewal.settle(stalled.sentAt)) {
				failed(renewal, new RedisCommandTimeoutException("Redis did not answer the renewal within "
						+ TimeUnit.NANOSECONDS.toMillis(now - stalled.sentAt) + " ms"), now);
				return true;
			}
			if (now - renewal.lease.expiresAtNanos() >= 0) {
				expired(renewal);
				return true;
			}
			return false;
		});
	}

	/** Report what an answer found, and schedule the lease's next renewal. */
	private void take(Attempt attempt, long now) {
		Renewal renewal = attempt.renewal;
		LockLease lease = renewal.lease;
		Throwable failure = attempt.failure;
		if (failure != null) {
			if (attempt.awaited) {
				failed(renewal, failure, attempt.sentAt + this.renewIntervalNanos / 10);
			}
		}
		else if (attempt.renewed) {
			if (this.events != null) {
				this.events.renewed(lease);
			}
			if (attempt.awaited && renewal.watched) {
				this.schedule.add(renewal, attempt.sentAt + this.renewIntervalNanos);
			}
		}
		else if (lose(renewal)) {
			// Redis said the lock is no longer the owner's.
			reportLost(lease, "it expired or was taken over in Redis");
		}
	}

	private void failed(Renewal renewal, Throwable failure, long retryAt) {
		if (!renewal.watched) {
			return;
		}
		renewal.lastFailure = failure;
		logger.debug("Could not renew lock '{}'; trying again", renewal.lease.key(), failure);
		if (this.events != null) {
			this.events.renewalFailed(renewal.lease, (failure instanceof RuntimeException runtime) ? runtime
					: new RedisException("Could not renew lock '" + renewal.lease.key() + "'", failure));
		}
		this.schedule.add(renewal, retryAt);
	}

	/**
	 * Send the renewals that are due, as many as the window lets through.
	 * @return whether due renewals are left for lack of room in the window
	 */
	private boolean sendDue(long now) {
		int room = WINDOW - this.inFlight.get();
		List<Renewal> batch = new ArrayList<>(Math.min(Math.max(room, 0), BATCH));
		Renewal renewal;
		while (room > 0 && (renewal = this.schedule.pollDue()) != null) {
			if (!renewal.watched) {
				continue;
			}
			if (now - renewal.lease.expiresAtNanos() >= 0) {
				expired(renewal);
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

	private void send(List<Renewal> batch, long now) {
		long sentAt = (now != Renewal.NONE) ? now : now + 1;
		List<PreparedCall<Long>> calls = new ArrayList<>(batch.size());
		List<Attempt> attempts = new ArrayList<>(batch.size());
		for (Renewal renewal : batch) {
			renewal.inFlightSince = sentAt;
			Attempt attempt = new Attempt(renewal, sentAt);
			attempts.add(attempt);
			this.young.addLast(attempt);
			calls.add(renewal.call(this.scripts));
		}
		this.inFlight.addAndGet(batch.size());
		try {
			this.scripts.renewAllAsync(calls, attempts);
		}
		catch (RuntimeException ex) {
			for (Attempt attempt : attempts) {
				attempt.answered(null, ex);
			}
		}
	}

	/** A lease whose last known expiry passed without a renewal. */
	private void expired(Renewal renewal) {
		if (lose(renewal)) {
			Throwable failure = renewal.lastFailure;
			reportLost(renewal.lease, (failure != null)
					? "Redis could not be reached to renew it before its lease ran out (" + failure.getMessage() + ")"
					: "Redis did not answer its renewal before its lease ran out");
		}
	}

	/** Mark the lease lost; true for the call that did. */
	private boolean lose(Renewal renewal) {
		// A lease released while its renewal was in flight finds its key gone: not a
		// loss.
		if (!this.watched.remove(renewal.lease, renewal)) {
			return false;
		}
		renewal.watched = false;
		return renewal.lease.markLost();
	}

	private void reportLost(LockLease lease, String reason) {
		logger.warn("Lost lock '{}' (fencing token {}) while it was held: {}; work done under it is no longer "
				+ "exclusive", lease.key(), lease.fencingToken(), reason);
		if (this.events != null) {
			this.events.lost(lease);
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	/**
	 * One watched lease and the renewal it has in flight, which the tick thread sends and
	 * an answer, on the client's thread, or the deadline settles.
	 */
	private static final class Renewal {

		static final long NONE = Long.MIN_VALUE;

		private static final AtomicLongFieldUpdater<Renewal> IN_FLIGHT_SINCE = AtomicLongFieldUpdater
			.newUpdater(Renewal.class, "inFlightSince");

		final LockLease lease;

		/**
		 * Whether the lease is still watched; a flag, so the tick needs no map lookup.
		 */
		volatile boolean watched = true;

		/** When the renewal in flight was sent; {@link #NONE} when none is. */
		volatile long inFlightSince = NONE;

		volatile @Nullable Throwable lastFailure;

		/** The renewal script call, encoded at the first renewal; tick thread only. */
		private @Nullable PreparedCall<Long> call;

		Renewal(LockLease lease) {
			this.lease = lease;
		}

		PreparedCall<Long> call(LockScripts scripts) {
			PreparedCall<Long> prepared = this.call;
			if (prepared == null) {
				prepared = scripts.renewal(this.lease);
				this.call = prepared;
			}
			return prepared;
		}

		/**
		 * End the wait for the renewal sent at the given time; false when it had ended
		 * already, by an answer or the deadline.
		 */
		boolean settle(long sentAt) {
			return IN_FLIGHT_SINCE.compareAndSet(this, sentAt, NONE);
		}

	}

	/**
	 * One renewal sent, and what its answer found. The answer's fields are written on the
	 * client's thread before its state is set, and read on the tick thread after
	 * {@link #isAnswered()}.
	 */
	private final class Attempt implements Answer<Long> {

		private static final int COUNTED = 0;

		private static final int STALLED = 1;

		private static final int ANSWERED = 2;

		private static final AtomicIntegerFieldUpdater<Attempt> STATE = AtomicIntegerFieldUpdater
			.newUpdater(Attempt.class, "state");

		final Renewal renewal;

		final long sentAt;

		private volatile int state = COUNTED;

		/**
		 * Whether the answer settled the renewal, rather than came after its deadline.
		 */
		boolean awaited;

		boolean renewed;

		@Nullable Throwable failure;

		Attempt(Renewal renewal, long sentAt) {
			this.renewal = renewal;
			this.sentAt = sentAt;
		}

		/** Record the answer; runs on the Redis client's thread. */
		@Override
		public void answered(@Nullable Long reply, @Nullable Throwable failure) {
			this.awaited = this.renewal.settle(this.sentAt);
			if (failure != null) {
				this.failure = failure;
			}
			else if (LockScripts.isRenewed(reply)) {
				// Late or not, it is true: Redis renewed the lease after it was sent.
				this.renewal.lease.renewed(this.sentAt);
				this.renewed = true;
			}
			if (STATE.getAndSet(this, ANSWERED) == COUNTED) {
				LockWatchdog.this.inFlight.decrementAndGet();
			}
		}

		/** Stop counting it against the window; true when it still did. */
		boolean stall() {
			return STATE.compareAndSet(this, COUNTED, STALLED);
		}

		boolean isAnswered() {
			return this.state == ANSWERED;
		}

	}

	/**
	 * What the watchdog finds about the leases it renews, reported from its thread.
	 */
	interface LeaseEvents {

		/** The lease was renewed. */
		void renewed(LockLease lease);

		/** Redis could not be reached to renew the lease; it is tried again. */
		void renewalFailed(LockLease lease, RuntimeException ex);

		/** The lease was found lost, and marked so by this call. */
		void lost(LockLease lease);

	}

}
