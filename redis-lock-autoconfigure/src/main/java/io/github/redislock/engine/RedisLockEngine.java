package io.github.redislock.engine;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
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
 * The {@link LockEngine} that keeps locks in Redis through a Lettuce
 * {@link RedisConnectionFactory}, with or without a Spring context:
 *
 * <pre class="code">
 * LockTemplate locks = new LockTemplate(new RedisLockEngine(connectionFactory, options));
 * </pre>
 *
 * <p>
 * A facade over the parts {@link EngineParts} builds: creating an engine opens no
 * connection and starts no thread; its first acquisition does. Uncontended, a lock and
 * its release are two round trips and a reentrant acquisition none; a waiter costs one
 * subscription per lock name, shared in this JVM, and no command while it sleeps.
 *
 * @author redis-lock
 */
public final class RedisLockEngine implements LockEngine {

	private final LockOptions options;

	private final EngineShutdown shutdown = new EngineShutdown();

	private final EngineParts parts;

	/**
	 * Create an engine with the {@linkplain LockOptions#defaults() default options}, as
	 * {@link #RedisLockEngine(RedisConnectionFactory, LockOptions, LockObserver, Executor)}.
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, LockOptions.defaults());
	}

	/**
	 * Create an engine without an observer, as
	 * {@link #RedisLockEngine(RedisConnectionFactory, LockOptions, LockObserver, Executor)}.
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options) {
		this(connectionFactory, options, null);
	}

	/**
	 * Create an engine that runs its background work on threads of its own, as
	 * {@link #RedisLockEngine(RedisConnectionFactory, LockOptions, LockObserver, Executor)}.
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options,
			@Nullable LockObserver observer) {
		this(connectionFactory, options, observer, null);
	}

	/**
	 * Create an engine that reports to an observer and runs its background work on the
	 * application's executor ({@link EngineThreads}). The work may wait for Redis up to
	 * the command timeout; virtual threads suit it. The watchdog keeps its own thread.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, defaults, lease and renewal settings
	 * @param observer told of acquisitions, holds, renewals and losses, such as an
	 * {@code ObservationLockObserver}, or {@code null} for none, which costs no call and
	 * no clock read
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

	/** A command timeout shorter than {@code WAIT}'s fails it before replicas count. */
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
		EngineParts.Running running = this.parts.running(request.key());
		LockHold hold = running.acquirer()
			.acquire(request.key(), request.name(), LockKind.of(request.mode(), request.isFair(), request.limit()),
					wait, leaseTime(request), request.isReentrant());
		return (hold != null) ? new LockHold.Handle(running, hold) : null;
	}

	/** The request's fixed lease, or the options' ({@code null} for watchdog renewal). */
	private @Nullable Duration leaseTime(LockRequest request) {
		return (request.leaseTime() != null) ? request.leaseTime() : this.options.leaseTime();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The first attempt is sent without waiting; the future completes on the
	 * {@link EngineThreads}, and a wait costs no thread.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request, Duration wait) {
		EngineParts.Running running;
		try {
			running = this.parts.running(request.key());
		}
		catch (LockShutdownException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return running.acquirer()
			.acquireAsync(request.key(), request.name(), LockKind.of(request.mode(), request.isFair(), request.limit()),
					wait, leaseTime(request), (hold) -> new LockHold.Handle(running, hold));
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
		return this.parts;
	}

	/** The engine's parts, for the tests of this package. */
	EngineParts parts() {
		return this.parts;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Runs on the calling thread, in the phases of {@link EngineShutdown}.
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

	@Override
	public void close() {
		shutdown(CLOSE_GRACE);
	}

}
