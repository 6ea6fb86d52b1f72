package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.RedisCommandInterruptedException;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockNotReplicatedException;
import io.github.redislock.LockOptions;
import io.github.redislock.engine.LockObserver.AcquireOutcome;
import io.github.redislock.engine.LockObserver.ReleaseOutcome;
import io.github.redislock.engine.ReleaseSubscriptions.EagerAcquisition;
import io.github.redislock.engine.ReleaseSubscriptions.Waiter;

/**
 * Acquires and releases locks in Redis for one {@link io.github.redislock.LockTemplate}:
 * reentrancy within this JVM, the acquire / wait / retry loop, release and the watchdog.
 *
 * <p>
 * Uncontended, a lock and its release are two round trips, one script each; a reentrant
 * acquisition is none. A waiter costs one subscription per lock name (shared by all
 * waiters of that name in this JVM) and no command while it sleeps.
 *
 * <p>
 * Needs a Lettuce connection factory: the release subscription relies on Lettuce
 * subscribing without blocking the calling thread.
 *
 * <p>
 * An optional {@link LockObserver} is told of acquisitions, holds, renewals and losses.
 * Without one, the engine makes no call and reads no clock for it.
 *
 * @author redis-lock
 */
public final class RedisLockEngine implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisLockEngine.class);

	/** How many times in a row a lock may pass between threads of this JVM. */
	private static final int MAX_HANDOFFS = 16;

	/**
	 * How long at most this JVM leaves a lock it released alone when other JVMs wait for
	 * it; the first release by another JVM ends the wait sooner.
	 */
	private static final long YIELD_NANOS = 50_000_000;

	/** How soon a failed background release is tried again, the first time. */
	private static final long GIVE_BACK_FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	/** How soon a failed background release is tried again at most. */
	private static final long GIVE_BACK_LAST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** How soon a waiter tries again when its lock's cluster slot is being migrated. */
	private static final long MIGRATION_RETRY_MILLIS = 50;

	/** How long a channel stays subscribed after its last waiter left. */
	private static final long SUBSCRIPTION_LINGER_MILLIS = 1000;

	/**
	 * How often a waiter in a fair queue or a writer with an intent renews it, by trying
	 * again, while nothing wakes it sooner.
	 */
	private static final long LINE_RENEW_NANOS = TimeUnit.MILLISECONDS.toNanos(Acquisition.LINE_LEASE_MILLIS / 3);

	private final LockOptions options;

	private final LockKeys keys;

	private final LockScripts scripts;

	private final OwnerTokens tokens = new OwnerTokens();

	private final ReleaseSubscriptions subscriptions;

	private final LockWatchdog watchdog;

	private final Housekeeping housekeeping;

	private final AsyncAcquirer asyncAcquirer;

	/** The hold of each lock this JVM holds now, for reentrancy and diagnostics. */
	private final LocalHolds holds = new LocalHolds();

	/** Told of what happens to locks; {@code null} when nobody observes them. */
	private final @Nullable LockObserver observer;

	/**
	 * Create an engine on the given connection factory.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, lease and renewal settings
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options) {
		this(connectionFactory, options, null);
	}

	/**
	 * Create an engine on the given connection factory that reports to an observer.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, lease and renewal settings
	 * @param observer told of acquisitions, holds, renewals and losses, or {@code null}
	 * for none
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options,
			@Nullable LockObserver observer) {
		if (connectionFactory.getClass().getName().contains("Jedis")) {
			throw new IllegalArgumentException("redis-lock needs a Lettuce connection factory, not "
					+ connectionFactory.getClass().getName() + ": Jedis subscriptions block a thread each");
		}
		checkReplicationTimeout(connectionFactory, options);
		this.options = options;
		this.observer = (observer != null) ? new GuardedLockObserver(observer) : null;
		this.keys = new LockKeys(options.keyPrefix());
		LockKind.all();
		ReleaseMessaging messaging = new ReleaseMessaging(connectionFactory);

		this.scripts = new LockScripts(connectionFactory, this.keys, messaging);
		this.asyncAcquirer = new AsyncAcquirer(this.scripts.commands());
		String controlChannel = this.keys.controlChannel();
		this.subscriptions = new ReleaseSubscriptions((listener) -> messaging.subscriber(controlChannel, listener),
				SUBSCRIPTION_LINGER_MILLIS, this.tokens.instanceId());
		this.housekeeping = new Housekeeping(this.subscriptions::sweep, SUBSCRIPTION_LINGER_MILLIS);
		this.housekeeping.execute(this.scripts::prepare);
		this.watchdog = new LockWatchdog(this.scripts, options.watchdogLease(), options.renewInterval(),
				(this.observer != null) ? new ObservedLeases(this.observer) : null);
	}

	/**
	 * Reject a replication timeout the client's command timeout would cut short: the
	 * {@code WAIT} would fail as a Redis error rather than report too few replicas.
	 */
	private static void checkReplicationTimeout(RedisConnectionFactory connectionFactory, LockOptions options) {
		if (options.minReplicas() > 0 && connectionFactory instanceof LettuceConnectionFactory lettuce
				&& options.replicationTimeout().toMillis() >= lettuce.getTimeout()) {
			throw new IllegalArgumentException("replicationTimeout (redis-lock.replication-timeout, "
					+ options.replicationTimeout() + ") must be shorter than the Redis command timeout "
					+ "(spring.data.redis.timeout, " + Duration.ofMillis(lettuce.getTimeout())
					+ "), which would otherwise end the wait for replicas as a failure");
		}
	}

	/**
	 * Return the options this engine runs with.
	 * @return the options
	 */
	public LockOptions options() {
		return this.options;
	}

	/**
	 * Acquire a lock, waiting up to the wait time.
	 * @param key the lock name, already checked
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param reentrant whether the lock belongs to the calling thread, which may re-enter
	 * it, or to the acquisition alone
	 * @return a handle, or {@code null} when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while waiting
	 */
	public @Nullable LockHandle acquire(String key, Duration waitTime, @Nullable Duration leaseTime,
			boolean reentrant) {
		return acquire(key, null, waitTime, leaseTime, reentrant);
	}

	/**
	 * Acquire a lock, waiting up to the wait time, under a name for the observer.
	 * @param key the lock name, already checked
	 * @param name a low-cardinality name for the {@link LockObserver}, such as the
	 * annotated method, or {@code null} to let it derive one from the key
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param reentrant whether the lock belongs to the calling thread, which may re-enter
	 * it, or to the acquisition alone
	 * @return a handle, or {@code null} when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while waiting
	 */
	public @Nullable LockHandle acquire(String key, @Nullable String name, Duration waitTime,
			@Nullable Duration leaseTime, boolean reentrant) {
		return acquire(key, name, LockKind.EXCLUSIVE, waitTime, leaseTime, reentrant);
	}

	/**
	 * Acquire a lock of the given kind, waiting up to the wait time, under a name for the
	 * observer.
	 * @param key the lock name, already checked
	 * @param name a low-cardinality name for the {@link LockObserver}, or {@code null} to
	 * let it derive one from the key
	 * @param kind exclusive, fair, or a side of a read/write lock
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param reentrant whether the lock belongs to the calling thread, which may re-enter
	 * it, or to the acquisition alone
	 * @return a handle, or {@code null} when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while waiting
	 * @throws IllegalStateException when the thread holds the read lock and asks for the
	 * write lock of the same name
	 */
	public @Nullable LockHandle acquire(String key, @Nullable String name, LockKind kind, Duration waitTime,
			@Nullable Duration leaseTime, boolean reentrant) {
		if (Thread.currentThread().isInterrupted()) {
			// As java.util.concurrent's interruptible waits: an interrupt ends them at
			// once,
			// without a command sent for an acquisition nobody would use.
			throw new LockInterruptedException(key, new InterruptedException("Interrupted before acquiring"));
		}
		LockHold current = this.holds.ofThread(kind, key);
		if (reentrant && LocalHolds.isOwnedByThisThread(current) && reenter(current)) {
			return new RedisLockHandle(this, current);
		}
		String covering = kind.admit(this.holds, key);
		Acquisition acquisition = new Acquisition(kind, key, this.tokens.next(),
				Durations.millis((leaseTime != null) ? leaseTime : this.options.watchdogLease()), leaseTime == null,
				reentrant, System.nanoTime() + Durations.nanos(waitTime), covering, true);
		LockObserver observer = this.observer;
		LockHold hold = (observer != null) ? acquireObserved(observer, acquisition, name, current, waitTime)
				: acquire(acquisition, current, waitTime);
		return (hold != null) ? new RedisLockHandle(this, hold) : null;
	}

	/**
	 * Count one more handle of the thread's hold. When the estimate of a renewed lease's
	 * expiry passed but Redis never said it is gone (a renewal's answer is late: a slow
	 * or paused server, a reconnect), Redis is asked once, under the hold's own owner: a
	 * fresh owner would be refused by this very hold.
	 */
	private boolean reenter(LockHold hold) {
		if (hold.tryReenter()) {
			return true;
		}
		LockLease lease = hold.lease();
		if (hold.isReleased() || lease.isMarkedLost() || !lease.isRenewed()) {
			return false;
		}
		long sentAt = System.nanoTime();
		boolean renewed;
		try {
			renewed = this.scripts.renew(lease);
		}
		catch (RedisCommandInterruptedException ex) {
			throw new LockInterruptedException(hold.key(),
					new InterruptedException("Interrupted while Redis was asked whether the lock is still held"));
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(hold.key(), "acquire", ex);
		}
		// A lock that is gone is reported by the watchdog, whose next renewal finds the
		// same.
		if (!renewed) {
			return false;
		}
		lease.renewed(sentAt);
		return hold.tryReenter();
	}

	private @Nullable LockHold acquire(Acquisition acquisition, @Nullable LockHold current, Duration waitTime) {
		LockHold hold = null;
		// A lock another thread of this JVM holds needs no round trip to know it is
		// taken. Fair and read/write locks must ask Redis: to queue, or to share.
		// Yielding
		// to other JVMs only delays attempts that can wait: one without wait asks Redis,
		// as java.util.concurrent's tryLock() barges even into a fair lock.
		LockKind kind = acquisition.kind();
		boolean heldHere = kind.handsOver() && LocalHolds.isHeldByAnotherThread(current);
		boolean yielding = kind.yields() && !waitTime.isZero()
				&& this.subscriptions.yieldingNanos(kind.channel(this.keys, acquisition.key())) > 0;
		if (!heldHere && !yielding) {
			// Not queued yet: a waiter at the head of a fair queue, or a writer keeping
			// readers out, must be able to hear its wake-up, so it queues once
			// subscribed.
			hold = tryRedis(acquisition.withoutQueueing()).hold();
		}
		if (hold == null && !waitTime.isZero()) {
			hold = await(acquisition);
		}
		return hold;
	}

	private @Nullable LockHold acquireObserved(LockObserver observer, Acquisition acquisition, @Nullable String name,
			@Nullable LockHold current, Duration waitTime) {
		String key = acquisition.key();
		long startedAt = System.nanoTime();
		Object context = observer.acquireStarted(key, name);
		LockHold hold;
		try {
			hold = acquire(acquisition, current, waitTime);
		}
		catch (RuntimeException ex) {
			AcquireOutcome outcome = (ex instanceof LockInterruptedException) ? AcquireOutcome.INTERRUPTED
					: AcquireOutcome.FAILED;
			observer.acquireEnded(key, context, outcome, System.nanoTime() - startedAt, ex);
			throw ex;
		}
		long waitNanos = System.nanoTime() - startedAt;
		if (hold == null) {
			observer.acquireEnded(key, context, AcquireOutcome.TIMED_OUT, waitNanos, null);
			return null;
		}
		observer.acquireEnded(key, context, AcquireOutcome.ACQUIRED, waitNanos, null);
		hold.observed(observer.held(key, name, hold.fencingToken(), context));
		return hold;
	}

	/**
	 * Wait for the lock as a queued subscriber of its release channel, until Redis grants
	 * it or a local holder hands it over.
	 * @return the hold, or {@code null} when the wait time ran out
	 */
	private @Nullable LockHold await(Acquisition acquisition) {
		LockKind kind = acquisition.kind();
		String channel = kind.channel(this.keys, acquisition.key());
		Waiter waiter;
		try {
			waiter = this.subscriptions.join(channel, kind.handsOver() && acquisition.renewed(),
					acquisition.reentrant(), acquisition.owner(), eagerAcquisition(acquisition));
		}
		catch (RedisCommandInterruptedException ex) {
			throw new LockInterruptedException(acquisition.key(),
					new InterruptedException("Interrupted while subscribing to the lock's releases"));
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(acquisition.key(), "wait for", ex);
		}
		LockHold hold = null;
		try {
			while (true) {
				hold = waiter.takeHandoff();
				if (hold != null) {
					return hold;
				}
				long sleepNanos;
				LockHold local = kind.handsOver() ? this.holds.ofThread(kind, acquisition.key()) : null;
				long yielding = kind.yields() ? this.subscriptions.yieldingNanos(channel) : 0;
				if (LocalHolds.isHeldByAnotherThread(local)) {
					// Its release wakes a queued waiter: by hand-over, or by the release
					// message.
					sleepNanos = local.lease().expiresAtNanos() - System.nanoTime();
				}
				else if (yielding > 0) {
					sleepNanos = yielding;
				}
				else {
					Outcome outcome = tryRedis(acquisition);
					hold = outcome.hold();
					if (hold != null) {
						return hold;
					}
					sleepNanos = outcome.holderLeftNanos();
				}
				long remaining = acquisition.deadlineNanos() - System.nanoTime();
				if (remaining <= 0) {
					return null;
				}
				if (kind.queues()) {
					// Wake in time to renew the queue entry or writer intent.
					sleepNanos = Math.min(sleepNanos, LINE_RENEW_NANOS);
				}
				waiter.await(Math.min(remaining, Math.max(sleepNanos, 1_000_000)));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(acquisition.key(), ex);
		}
		finally {
			LockHold untaken = this.subscriptions.leave(channel, waiter);
			if (untaken != null && untaken != hold) {
				// Handed over as this waiter gave up: pass it on rather than drop it.
				releaseQuietly(untaken);
			}
			if (hold == null && kind.queues()) {
				leaveLine(acquisition);
			}
		}
	}

	/**
	 * Take a waiter that gives up out of its fair queue or writer intent at once, rather
	 * than let those behind it wait for its entry's deadline.
	 */
	private void leaveLine(Acquisition acquisition) {
		try {
			acquisition.kind().leave(this.scripts, acquisition.key(), acquisition.owner());
		}
		catch (RuntimeException ex) {
			logger.debug("Could not leave the line of lock '{}'; the entry ends with its wait time", acquisition.key(),
					ex);
		}
	}

	/** One acquire script; a grant becomes this thread's hold. */
	private Outcome tryRedis(Acquisition acquisition) {
		long sentAt = System.nanoTime();
		Attempt attempt = attempt(acquisition);
		if (!attempt.granted()) {
			long holderLeft = (attempt.holderLeaseMillis() < 0) ? Long.MAX_VALUE
					: attempt.holderLeaseMillis() * 1_000_000;
			return new Outcome(null, holderLeft);
		}
		return new Outcome(grant(acquisition, attempt, Thread.currentThread(), sentAt), 0);
	}

	/** Record a grant as the hold of the given thread. */
	private LockHold grant(Acquisition acquisition, Attempt attempt, Thread thread, long sentAt) {
		LockLease lease = new LockLease(acquisition.kind(), acquisition.key(), acquisition.owner(),
				attempt.fencingToken(), acquisition.leaseMillis(), acquisition.renewed(), sentAt);
		LockHold hold = new LockHold(lease, attempt.fencingToken(), acquisition.reentrant() ? thread : null, 0);
		lease.heldBy(hold);
		LockHold replaced = this.holds.granted(hold);
		if (replaced != null && replaced.lease() != lease && !replaced.isReleased()) {
			lostToGrant(replaced);
		}
		if (lease.isRenewed()) {
			this.watchdog.watch(lease);
		}
		return hold;
	}

	/**
	 * Mark lost a hold that Redis has just granted to another owner of this JVM: its
	 * lease had ended there, because Redis lost its data or the lease ran out before this
	 * JVM noticed. Left in place, its thread would re-enter or hand over a lock held by
	 * another.
	 */
	private void lostToGrant(LockHold hold) {
		LockLease lease = hold.lease();
		this.watchdog.unwatch(lease);
		if (lease.markLost()) {
			logger.warn(
					"Lost lock '{}' (fencing token {}) while it was held: Redis granted it to another owner, so "
							+ "its lease had ended there; work done under it is no longer exclusive",
					hold.key(), hold.fencingToken());
			LockObserver observer = this.observer;
			if (observer != null) {
				observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
		}
	}

	/**
	 * The acquisition that the thread receiving a release message sends for a waiting
	 * exclusive lock; none with {@code minReplicas}, whose {@code WAIT} must follow the
	 * grant on its connection.
	 */
	private @Nullable EagerAcquisition eagerAcquisition(Acquisition acquisition) {
		if (!acquisition.kind().acquiresEagerly() || this.options.minReplicas() > 0) {
			return null;
		}
		return new EagerAcquisition() {

			@Override
			public CompletionStage<@Nullable LockHold> start(Thread thread) {
				// An owner token of its own: the waiter may try at the same time under
				// its
				// token, and since a script run twice for one owner grants twice, sharing
				// one would make one grant two holds. Two owners cannot both be granted.
				Acquisition eager = acquisition.withOwner(RedisLockEngine.this.tokens.next());
				long sentAt = System.nanoTime();
				return RedisLockEngine.this.asyncAcquirer
					.acquire(eager.kind().acquireCall(RedisLockEngine.this.scripts, eager),
							RedisLockEngine.this.subscriptions.subscriptionCommands())
					.handle((attempt, ex) -> {
						if (ex != null) {
							// Redis may have granted it without an answer; nobody asks
							// under
							// this owner token again, so give back whatever it holds.
							giveBack(eager.kind(), eager.key(), eager.owner(), eager.leaseMillis());
							throw (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
						}
						return attempt.granted() ? grant(eager, attempt, thread, sentAt) : null;
					});
			}

			@Override
			public void undelivered(LockHold hold) {
				// Not on the Redis client's thread, which must stay free to answer.
				RedisLockEngine.this.housekeeping.execute(() -> releaseQuietly(hold));
			}

		};
	}

	private Attempt attempt(Acquisition acquisition) {
		String key = acquisition.key();
		String owner = acquisition.owner();
		LockKind kind = acquisition.kind();
		Attempt attempt;
		try {
			int replicas = this.options.minReplicas();
			attempt = (replicas > 0)
					? this.scripts.acquireReplicated(key, () -> kind.acquire(this.scripts, acquisition), replicas,
							this.options.replicationTimeout().toMillis())
					: kind.acquire(this.scripts, acquisition);
		}
		catch (RedisCommandInterruptedException ex) {
			giveBack(kind, key, owner, acquisition.leaseMillis());
			throw new LockInterruptedException(key,
					new InterruptedException("Interrupted while Redis ran the acquisition"));
		}
		catch (RuntimeException ex) {
			if (isSlotMigrating(ex)) {
				// The script did not run: its slot is being moved between cluster nodes.
				// Not granted; a waiter tries again shortly.
				return Attempt.heldFor(MIGRATION_RETRY_MILLIS);
			}
			// Redis may have run the script before failing to answer: release what it may
			// have granted, in the background and owner-checked, so nothing stays locked
			// for a lease.
			giveBack(kind, key, owner, acquisition.leaseMillis());
			throw new LockAccessException(key, "acquire", ex);
		}
		if (attempt.granted() && attempt.replicas() < this.options.minReplicas()) {
			// Lost for good if the primary failed now: give it back rather than hold it.
			giveBack(kind, key, owner, acquisition.leaseMillis());
			throw new LockNotReplicatedException(key, attempt.replicas(), this.options.minReplicas(),
					this.options.replicationTimeout());
		}
		return attempt;
	}

	/**
	 * Whether Redis refused a script because its keys' slot is being migrated and not all
	 * of them have moved yet ({@code TRYAGAIN}).
	 */
	private static boolean isSlotMigrating(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.startsWith("TRYAGAIN")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Release, in the background and owner-checked, what Redis may have granted to an
	 * acquisition whose caller cannot know: tried again while it fails, until the grant's
	 * lease would have ended anyway, so that a lost answer never leaves a lock held for
	 * its whole lease.
	 */
	private void giveBack(LockKind kind, String key, String owner, long leaseMillis) {
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		this.housekeeping.execute(() -> giveBack(kind, key, owner, until, GIVE_BACK_FIRST_RETRY_NANOS));
	}

	private void giveBack(LockKind kind, String key, String owner, long untilNanos, long retryNanos) {
		if (tryGiveBack(kind, key, owner)) {
			return;
		}
		if (System.nanoTime() + retryNanos - untilNanos >= 0) {
			logger.warn("Could not release lock '{}' after a failed acquisition or release; it expires with its lease",
					key);
			return;
		}
		// Scheduled, not slept: a housekeeping thread stays free for the sweep.
		this.housekeeping.schedule(
				() -> giveBack(kind, key, owner, untilNanos, Math.min(retryNanos * 2, GIVE_BACK_LAST_RETRY_NANOS)),
				retryNanos);
	}

	private boolean tryGiveBack(LockKind kind, String key, String owner) {
		try {
			releaseByOwner(kind, key, owner);
			return true;
		}
		catch (RuntimeException ex) {
			logger.debug("Could not release lock '{}' after a failed acquisition; trying again", key, ex);
			return false;
		}
	}

	/**
	 * Release, owner-checked, what the owner may hold, and take it out of any line.
	 * @throws RuntimeException from the Redis client when Redis failed
	 */
	private void releaseByOwner(LockKind kind, String key, String owner) {
		kind.giveBack(this.scripts, key, owner);
		if (kind.yields()) {
			// Its message names an owner of this JVM, which wakes no local waiter by
			// itself.
			this.subscriptions.releasedHere(kind.channel(this.keys, key), false, 0);
		}
	}

	private void releaseQuietly(LockHold hold) {
		try {
			release(hold);
		}
		catch (LockLostException ex) {
			logger.debug("Lock '{}', handed to a waiter that had left, was lost meanwhile", hold.key(), ex);
		}
		catch (RuntimeException ex) {
			LockLease lease = hold.lease();
			giveBack(lease.kind(), lease.key(), lease.owner(), lease.leaseMillis());
		}
	}

	void release(LockHold hold) {
		if (!hold.exit()) {
			if (hold.isLost()) {
				throw new LockLostException(hold.key(), hold.fencingToken());
			}
			return;
		}
		LockLease lease = hold.lease();
		LockKind kind = lease.kind();
		String channel = kind.channel(this.keys, hold.key());
		if (mayHandOff(hold) && this.subscriptions.handOff(channel, hold::successor, (next) -> install(hold, next))) {
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
			giveBack(kind, hold.key(), lease.owner(),
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
	 * Run the release script, again for a while if the lock's cluster slot is being
	 * migrated: the lock would otherwise stay held until its lease ends.
	 */
	private long releaseInRedis(LockKind kind, LockHold hold) {
		long lastToken = (hold.handoffs() > 0) ? hold.fencingToken() : 0;
		long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
		while (true) {
			try {
				return kind.release(this.scripts, hold.key(), hold.lease().owner(), lastToken);
			}
			catch (RuntimeException ex) {
				if (!isSlotMigrating(ex) || System.nanoTime() - giveUpAt > 0) {
					throw ex;
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(MIGRATION_RETRY_MILLIS));
			}
		}
	}

	private void observeRelease(LockHold hold, ReleaseOutcome outcome, @Nullable Throwable failure) {
		LockObserver observer = this.observer;
		if (observer != null) {
			observer.released(hold.key(), hold.observerContext(), outcome, failure);
		}
	}

	/**
	 * Record a hold handed over from another thread of this JVM, in the place of the hold
	 * it follows; false when that place was taken meanwhile by a grant from Redis, which
	 * means the lease being handed over had ended there.
	 */
	private boolean install(LockHold previous, LockHold next) {
		if (!this.holds.handedOver(previous, next)) {
			return false;
		}
		next.lease().heldBy(next);
		return true;
	}

	/**
	 * Whether a released hold may go to a local waiter: only a renewed lease, since a
	 * waiter asks for the lease length the watchdog keeps, and at most
	 * {@value #MAX_HANDOFFS} times in a row, so that waiters in other JVMs get their
	 * turn: the release that ends a chain goes through Redis and wakes them.
	 */
	private boolean mayHandOff(LockHold hold) {
		LockLease lease = hold.lease();
		return lease.kind().handsOver() && lease.isRenewed() && !lease.isLost() && hold.handoffs() < MAX_HANDOFFS;
	}

	/**
	 * Return how many locks this JVM holds through this engine now.
	 * @return the number of held locks
	 */
	public int heldCount() {
		return this.holds.size();
	}

	/**
	 * Return how many lock channels are subscribed for waiters now; channels are
	 * unsubscribed about a second after their last waiter left.
	 * @return the number of subscribed lock channels
	 */
	public int subscribedChannelCount() {
		return this.subscriptions.subscribedChannels();
	}

	/**
	 * Return how many leases the watchdog renews now.
	 * @return the number of renewed holds
	 */
	public int renewedCount() {
		return this.watchdog.watchedCount();
	}

	/**
	 * Return how many threads wait for locks through this engine now. Walks the
	 * subscribed channels: meant for gauges and diagnostics, not for every lock call.
	 * @return the number of waiting threads
	 */
	public int waiterCount() {
		return this.subscriptions.waiterCount();
	}

	/**
	 * Return the locks this engine holds and the locks its threads wait for now, by lock
	 * name. Costs a walk of the held locks and of the subscribed channels, and nothing on
	 * the lock path.
	 * @return a snapshot of the held and awaited locks
	 */
	public LockSnapshot snapshot() {
		return LockSnapshot.of(this.holds.all(), this.subscriptions, this.keys);
	}

	/**
	 * Return the state of the connection that receives release messages. While it is
	 * {@linkplain SubscriptionStatus#DISCONNECTED disconnected}, waiting threads wake
	 * only when leases run out.
	 * @return the subscription status
	 */
	public SubscriptionStatus subscriptionStatus() {
		return this.subscriptions.status();
	}

	/**
	 * Stop renewing and close the subscription connection. Locks still held expire at the
	 * end of their lease; waiters give up at their next wake-up.
	 */
	@Override
	public void close() {
		this.watchdog.close();
		this.housekeeping.close();
		this.subscriptions.close();
		this.scripts.close();
	}

	/**
	 * A hold when Redis granted the lock, otherwise how long its holder's lease has left.
	 */
	private record Outcome(@Nullable LockHold hold, long holderLeftNanos) {
	}

}
