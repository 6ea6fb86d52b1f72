package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.engine.LockKind;
import io.github.redislock.engine.LockObserver;
import io.github.redislock.engine.RedisLockEngine;

/**
 * The standard {@link LockOperations}: locks in Redis through a Spring Data Redis
 * {@link RedisConnectionFactory} (Lettuce). Usable with or without a Spring context:
 *
 * <pre class="code">
 * LockTemplate locks = new LockTemplate(connectionFactory);
 * String result = locks.execute("report:daily", () -&gt; buildReport());
 * </pre>
 *
 * A template holds one background thread (the renewal watchdog) and, while threads wait,
 * one subscription connection; {@link #close()} stops both. Thread-safe: share one per
 * application.
 *
 * @author redis-lock
 */
public class LockTemplate implements LockOperations, AutoCloseable {

	private final RedisLockEngine engine;

	/**
	 * Create a template with the {@linkplain LockOptions#defaults() default options}.
	 * @param connectionFactory the Lettuce connection factory, started
	 */
	public LockTemplate(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, LockOptions.defaults());
	}

	/**
	 * Create a template with the given options.
	 * @param connectionFactory the Lettuce connection factory, started
	 * @param options the key prefix, defaults and watchdog settings
	 */
	public LockTemplate(RedisConnectionFactory connectionFactory, LockOptions options) {
		this.engine = new RedisLockEngine(connectionFactory, options);
	}

	/**
	 * Create a template with the given options that reports what happens to its locks,
	 * for metrics and traces.
	 * @param connectionFactory the Lettuce connection factory, started
	 * @param options the key prefix, defaults and watchdog settings
	 * @param observer told of acquisitions, holds, renewals and losses, such as a
	 * {@code ObservationLockObserver}
	 */
	public LockTemplate(RedisConnectionFactory connectionFactory, LockOptions options, LockObserver observer) {
		this.engine = new RedisLockEngine(connectionFactory, options, observer);
	}

	@Override
	public <T> T execute(LockRequest request, Supplier<T> action) {
		try (LockHandle handle = lock(request)) {
			T result = action.get();
			if (!handle.isHeld()) {
				// Thrown by close() below, unless the loss is only seen there.
				handle.close();
			}
			return result;
		}
	}

	@Override
	public Optional<LockHandle> tryLock(LockRequest request) {
		return Optional.ofNullable(acquire(request, waitTime(request)));
	}

	@Override
	public LockHandle lock(LockRequest request) {
		Duration waitTime = waitTime(request);
		LockHandle handle = acquire(request, waitTime);
		if (handle == null) {
			throw new LockTimeoutException(request.key(), waitTime);
		}
		return handle;
	}

	private @Nullable LockHandle acquire(LockRequest request, Duration waitTime) {
		Duration leaseTime = (request.leaseTime() != null) ? request.leaseTime() : options().leaseTime();
		return this.engine.acquire(request.key(), request.name(), LockKind.of(request.mode(), request.isFair()),
				waitTime, leaseTime, request.isReentrant());
	}

	private Duration waitTime(LockRequest request) {
		return (request.waitTime() != null) ? request.waitTime() : options().waitTime();
	}

	/**
	 * Return the options this template runs with.
	 * @return the options
	 */
	public LockOptions options() {
		return this.engine.options();
	}

	/**
	 * Return the engine, for diagnostics such as the number of held locks.
	 * @return the engine
	 */
	public RedisLockEngine engine() {
		return this.engine;
	}

	/**
	 * Stop the watchdog and close the subscription connection. Locks still held expire at
	 * the end of their lease.
	 */
	@Override
	public void close() {
		this.engine.close();
	}

}
