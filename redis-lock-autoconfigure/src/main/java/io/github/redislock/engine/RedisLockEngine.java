package io.github.redislock.engine;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockRules;

/**
 * The {@link LockEngine} that keeps locks in Redis, through a Spring Data Redis
 * {@link RedisConnectionFactory} (Lettuce): reentrancy within this JVM, the acquire /
 * wait / retry loop, release and the watchdog. The one public type of this package;
 * usable with or without a Spring context:
 *
 * <pre class="code">
 * LockTemplate locks = new LockTemplate(new RedisLockEngine(connectionFactory, options));
 * </pre>
 *
 * <p>
 * A facade: it builds the engine's parts and delegates to them, the acquire path to
 * {@link LockAcquirer}, the release path to {@link LockReleaser}, waiting to
 * {@link ReleaseSubscriptions} and renewal to {@link LockWatchdog}; what differs between
 * kinds of lock is in the {@link LockKind} subclasses.
 *
 * <p>
 * Uncontended, a lock and its release are two round trips, one script each; a reentrant
 * acquisition is none. A waiter costs one subscription per lock name (shared by all
 * waiters of that name in this JVM) and no command while it sleeps.
 *
 * <p>
 * {@link #acquireAsync} takes the same path without a thread: its wait is a
 * {@link PendingAcquisition}, queued with the waiting threads and woken by the same
 * release messages and local releases, and its release is sent without waiting
 * ({@link PendingAcquisitions}).
 *
 * <p>
 * {@link #shutdown(Duration)} (and {@link #close()}) refuse new acquisitions, wake the
 * waiters, give holders a grace time and release what is still held
 * ({@link EngineShutdown}); {@link RedisLockHandle#extend(Duration)} sets a lease by its
 * kind's renew script ({@link LeaseExtensions}).
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
public final class RedisLockEngine implements LockEngine {

	/** How long a channel stays subscribed after its last waiter left. */
	private static final long SUBSCRIPTION_LINGER_MILLIS = 1000;

	private final LockOptions options;

	private final LockKeys keys;

	private final LockScripts scripts;

	private final ReleaseSubscriptions subscriptions;

	private final LockWatchdog watchdog;

	private final Housekeeping housekeeping;

	/** What this JVM knows of each lock it holds or waits for. */
	private final LocalLocks locks;

	private final LockAcquirer acquirer;

	private final PendingAcquisitions pending;

	private final LockReleaser releaser;

	private final EngineShutdown.Parts shutdownParts;

	private final RedisLockDiagnostics diagnostics;

	private final LeaseExtensions extensions;

	/** What the engine's handles ask of it. */
	private final RedisLockHandle.Holds holds;

	private final EngineShutdown shutdown = new EngineShutdown();

	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Create an engine on the given connection factory with the
	 * {@linkplain LockOptions#defaults() default options}.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @throws IllegalArgumentException when the connection factory is not Lettuce's
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, LockOptions.defaults());
	}

	/**
	 * Create an engine on the given connection factory.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, defaults, lease and renewal settings
	 * @throws IllegalArgumentException when the connection factory is not Lettuce's, or
	 * the replication timeout is not shorter than its command timeout
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options) {
		this(connectionFactory, options, null);
	}

	/**
	 * Create an engine on the given connection factory that reports to an observer, for
	 * metrics and traces.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, defaults, lease and renewal settings
	 * @param observer told of acquisitions, holds, renewals and losses, such as an
	 * {@code ObservationLockObserver}, or {@code null} for none
	 * @throws IllegalArgumentException when the connection factory is not Lettuce's, or
	 * the replication timeout is not shorter than its command timeout
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options,
			@Nullable LockObserver observer) {
		if (connectionFactory.getClass().getName().contains("Jedis")) {
			throw new IllegalArgumentException("redis-lock needs a Lettuce connection factory, not "
					+ connectionFactory.getClass().getName() + ": Jedis subscriptions block a thread each");
		}
		checkReplicationTimeout(connectionFactory, options);
		this.options = options;
		LockObserver guarded = (observer != null) ? new GuardedLockObserver(observer) : null;
		this.keys = new LockKeys(options.keyPrefix());
		this.locks = new LocalLocks(this.keys);
		OwnerTokens tokens = new OwnerTokens();
		ReleaseMessaging messaging = new ReleaseMessaging(connectionFactory);
		this.scripts = new LockScripts(connectionFactory, this.keys, messaging);
		String controlChannel = this.keys.controlChannel();
		this.subscriptions = new ReleaseSubscriptions(
				(listener) -> messaging.subscriber(controlChannel, listener, this::runInBackground),
				SUBSCRIPTION_LINGER_MILLIS, tokens.instanceId(), this.locks);
		this.housekeeping = new Housekeeping(this.subscriptions::sweep, SUBSCRIPTION_LINGER_MILLIS);
		this.housekeeping.execute(this.scripts::prepare);
		LeaseEvents leaseEvents = new WakingLeaseEvents(this.locks,
				(guarded != null) ? new ObservedLeases(guarded) : null);
		this.watchdog = new LockWatchdog(this.scripts, options.watchdogLease(), options.renewInterval(), leaseEvents);
		Grants grants = new Grants(this.locks, this.watchdog, guarded);
		BackgroundReleases backgroundReleases = new BackgroundReleases(this.scripts, this.locks, this.housekeeping);
		HandOver handOver = new HandOver(this.scripts, this.locks, this.watchdog, leaseEvents, this.housekeeping);
		this.releaser = new LockReleaser(this.scripts, this.locks, this.watchdog, backgroundReleases, handOver,
				this.housekeeping, guarded);
		AcquireAttempts attempts = new AcquireAttempts(options, this.scripts, grants, backgroundReleases);
		this.shutdownParts = new EngineShutdown.Parts(this.locks, this.subscriptions, attempts, this.releaser,
				new Revocations(this.scripts, this.locks, this.watchdog, guarded),
				Duration.ofNanos(this.watchdog.answerDeadlineNanos()));
		LockWaiting waiting = new LockWaiting(this.scripts, this.locks, this.subscriptions, attempts, this.releaser,
				this.shutdown);
		this.acquirer = new LockAcquirer(options, tokens, this.scripts, this.locks, attempts, waiting, guarded,
				this.shutdown);
		this.pending = new PendingAcquisitions(options, tokens, this.scripts, this.locks, this.subscriptions, attempts,
				this.releaser, this.shutdown, this.housekeeping, guarded);
		this.extensions = new LeaseExtensions(this.scripts, this.watchdog, guarded);
		this.diagnostics = new RedisLockDiagnostics(this.locks, this.subscriptions, this.watchdog, backgroundReleases,
				this.keys);
		this.holds = new EngineHolds(this.releaser, this.pending, this.extensions);
	}

	/**
	 * Run work that waits for Redis on the engine's background threads: a method, since
	 * the subscription connection opens after the constructor, which builds those threads
	 * last.
	 */
	private void runInBackground(Runnable task) {
		this.housekeeping.execute(task);
	}

	/**
	 * Reject a replication timeout the client's command timeout would cut short: the
	 * {@code WAIT} would fail as a Redis error rather than report too few replicas.
	 */
	private static void checkReplicationTimeout(RedisConnectionFactory connectionFactory, LockOptions options) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			LockRules.Violation violation = LockRules.replicationTimeout(options.replicationTimeout(),
					options.minReplicas(), Duration.ofMillis(lettuce.getTimeout()));
			if (violation != null) {
				throw new IllegalArgumentException(violation.message("replicationTimeout"));
			}
		}
	}

	@Override
	public LockOptions options() {
		return this.options;
	}

	@Override
	public @Nullable LockHandle acquire(LockRequest request, Duration wait) {
		Duration leaseTime = (request.leaseTime() != null) ? request.leaseTime() : this.options.leaseTime();
		return acquire(request.key(), request.name(), LockKind.of(request.mode(), request.isFair()), wait, leaseTime,
				request.isReentrant());
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The first attempt is sent from the calling thread without waiting for its answer;
	 * the wait is a queued waiter of the lock's release channel, woken by the release
	 * message, a release by a holder of this JVM or a timer at the holder's lease end,
	 * and the future completes on the Redis client's thread or on one of the engine's
	 * {@code redis-lock-pending} threads. Opening a connection that is not open runs on
	 * the engine's housekeeping threads.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request, Duration wait) {
		Duration leaseTime = (request.leaseTime() != null) ? request.leaseTime() : this.options.leaseTime();
		return this.pending.acquire(request.key(), request.name(), LockKind.of(request.mode(), request.isFair()), wait,
				leaseTime, (hold) -> new RedisLockHandle(this.holds, hold));
	}

	/**
	 * Acquire a lock of the given kind, waiting up to the wait time, under a name for the
	 * observer.
	 * @param name a low-cardinality name for the {@link LockObserver}, or {@code null} to
	 * let it derive one from the key
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param reentrant whether the lock belongs to the calling thread, which may re-enter
	 * it, or to the acquisition alone
	 */
	private @Nullable LockHandle acquire(String key, @Nullable String name, LockKind kind, Duration waitTime,
			@Nullable Duration leaseTime, boolean reentrant) {
		LockHold hold = this.acquirer.acquire(key, name, kind, waitTime, leaseTime, reentrant);
		return (hold != null) ? new RedisLockHandle(this.holds, hold) : null;
	}

	@Override
	public @Nullable Duration remainingLease(String key) {
		long left;
		try {
			left = LockKind.leaseLeft(this.scripts, key);
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(key, "read the lease of", ex);
		}
		if (left == -1) {
			return ChronoUnit.FOREVER.getDuration();
		}
		return (left >= 0) ? Duration.ofMillis(left) : null;
	}

	@Override
	public LockDiagnostics diagnostics() {
		return this.diagnostics;
	}

	/** The watchdog, for the tests of this package. */
	LockWatchdog watchdog() {
		return this.watchdog;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Runs on the calling thread; the Spring auto-configuration calls it from its
	 * shutdown phase with that phase's time.
	 */
	@Override
	public void shutdown(Duration grace) {
		if (!this.shutdown.begin()) {
			return;
		}
		try {
			this.shutdown.run(grace, this.shutdownParts);
		}
		finally {
			closeConnections();
			this.shutdown.done();
		}
	}

	/**
	 * Number of pending acquisitions' timers queued now, cancelled ones included: for
	 * tests.
	 */
	int queuedPendingTimers() {
		return this.pending.rounds().queuedTimers();
	}

	/**
	 * Shut down with a grace of {@link #CLOSE_GRACE}, then stop renewing and close the
	 * connections. Calling it again has no effect: a template and the application context
	 * may both close the engine.
	 */
	@Override
	public void close() {
		shutdown(CLOSE_GRACE);
		closeConnections();
	}

	private void closeConnections() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		this.watchdog.close();
		this.pending.close();
		this.housekeeping.close();
		this.subscriptions.close();
		this.scripts.close();
	}

	/** The engine's answers to its handles: releases and extensions of their holds. */
	private record EngineHolds(LockReleaser releaser, PendingAcquisitions pending,
			LeaseExtensions extensions) implements RedisLockHandle.Holds {

		@Override
		public void release(LockHold hold) {
			this.releaser.release(hold);
		}

		@Override
		public CompletionStage<Void> releaseAsync(LockHold hold) {
			return this.pending.release(hold);
		}

		@Override
		public void extend(LockHold hold, Duration leaseTime) {
			this.extensions.extend(hold, leaseTime);
		}

	}

}
