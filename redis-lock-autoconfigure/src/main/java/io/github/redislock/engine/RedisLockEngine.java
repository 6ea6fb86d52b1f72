package io.github.redislock.engine;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

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
import io.github.redislock.LockShutdownException;

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
 * A facade over the parts {@link EngineParts} builds: the acquire path
 * ({@link LockAcquirer}), the release path ({@link LockReleaser}), waiting
 * ({@link ReleaseSubscriptions}) and renewal ({@link LockWatchdog}); what differs between
 * kinds of lock is in the {@link LockKind} subclasses. Creating an engine opens no
 * connection and starts no thread: its first acquisition does.
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
 * ({@link LockAcquirer#releaseAsync}).
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

	private final LockOptions options;

	/** What the engine's handles ask of it, answered by the running engine's parts. */
	private final RedisLockHandle.Holds holds = new EngineHolds();

	private final EngineShutdown shutdown = new EngineShutdown();

	private final EngineParts parts;

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
		this(connectionFactory, options, observer, null);
	}

	/**
	 * Create an engine on the given connection factory that reports to an observer and
	 * runs its background work on the application's executor: pending acquisitions'
	 * rounds, background releases, the sweep of idle subscriptions, opening connections
	 * for callers that must not wait. The work may wait for Redis up to the command
	 * timeout; an executor of virtual threads suits it. The watchdog keeps a thread of
	 * its own, which never waits for Redis.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, defaults, lease and renewal settings
	 * @param observer told of acquisitions, holds, renewals and losses, or {@code null}
	 * for none
	 * @param executor runs the engine's background work, or {@code null} for a pool of
	 * the engine's own
	 * @throws IllegalArgumentException when the connection factory is not Lettuce's, or
	 * the replication timeout is not shorter than its command timeout
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options,
			@Nullable LockObserver observer, @Nullable Executor executor) {
		if (connectionFactory.getClass().getName().contains("Jedis")) {
			throw new IllegalArgumentException("redis-lock needs a Lettuce connection factory, not "
					+ connectionFactory.getClass().getName() + ": Jedis subscriptions block a thread each");
		}
		checkReplicationTimeout(connectionFactory, options);
		this.options = options;
		this.parts = new EngineParts(connectionFactory, options,
				(observer != null) ? new GuardedLockObserver(observer) : null, executor, this.shutdown);
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
	 * and the future completes on the engine's background executor
	 * ({@link EngineThreads}), where opening a connection that is not open runs too.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request, Duration wait) {
		Duration leaseTime = (request.leaseTime() != null) ? request.leaseTime() : this.options.leaseTime();
		LockAcquirer acquirer;
		try {
			acquirer = this.parts.running(request.key()).acquirer();
		}
		catch (LockShutdownException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return acquirer.acquireAsync(request.key(), request.name(), LockKind.of(request.mode(), request.isFair()), wait,
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
		LockHold hold = this.parts.running(key).acquirer().acquire(key, name, kind, waitTime, leaseTime, reentrant);
		return (hold != null) ? new RedisLockHandle(this.holds, hold) : null;
	}

	@Override
	public @Nullable Duration remainingLease(String key) {
		long left;
		try {
			left = LockKind.leaseLeft(this.parts.scripts(), key);
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
		return this.parts.diagnostics();
	}

	/** The engine's parts, for the tests of this package. */
	EngineParts parts() {
		return this.parts;
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
			EngineParts.Running running = this.parts.stop();
			if (running != null) {
				this.shutdown.run(grace, running.shutdownParts());
			}
		}
		finally {
			this.parts.close();
			this.shutdown.done();
		}
	}

	/**
	 * Shut down with a grace of {@link #CLOSE_GRACE}, then stop renewing and close the
	 * connections. Calling it again has no effect: a template and the application context
	 * may both close the engine.
	 */
	@Override
	public void close() {
		shutdown(CLOSE_GRACE);
		this.parts.close();
	}

	/**
	 * The engine's answers to its handles: releases and extensions of their holds, by the
	 * parts of the running engine.
	 */
	private final class EngineHolds implements RedisLockHandle.Holds {

		@Override
		public void release(LockHold hold) {
			RedisLockEngine.this.parts.running(hold.key()).releaser().release(hold);
		}

		@Override
		public CompletionStage<Void> releaseAsync(LockHold hold) {
			return RedisLockEngine.this.parts.running(hold.key()).acquirer().releaseAsync(hold);
		}

		@Override
		public void extend(LockHold hold, Duration leaseTime) {
			RedisLockEngine.this.parts.running(hold.key()).extensions().extend(hold, leaseTime);
		}

	}

}
