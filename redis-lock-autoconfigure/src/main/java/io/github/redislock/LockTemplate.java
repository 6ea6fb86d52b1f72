package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The standard {@link LockOperations}: resolves each request's wait from the engine's
 * {@linkplain LockOptions options} and lets a {@link LockEngine} grant it. Usable with or
 * without a Spring context:
 *
 * <pre class="code">
 * LockTemplate locks = new LockTemplate(new RedisLockEngine(connectionFactory, options));
 * String result = locks.execute("report:daily", () -&gt; buildReport());
 * </pre>
 *
 * Closing the template closes its engine. Thread-safe: share one per application.
 *
 * @author redis-lock
 */
public class LockTemplate implements LockOperations, AutoCloseable {

	private final LockEngine engine;

	/**
	 * Create a template on the given engine, such as a
	 * {@code io.github.redislock.engine.RedisLockEngine}.
	 * @param engine grants and releases the locks; closed with the template
	 */
	public LockTemplate(LockEngine engine) {
		this.engine = engine;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * While the action runs, {@link CurrentLock#handle()} and
	 * {@link CurrentLock#fencingToken()} return the lock on the thread that runs it.
	 */
	@Override
	public <T> T execute(LockRequest request, Supplier<T> action) {
		try (LockHandle handle = lock(request)) {
			T result;
			try (CurrentLock.Scope scope = CurrentLock.open(handle)) {
				result = action.get();
			}
			if (!handle.isHeld()) {
				// Thrown by close() below, unless the loss is only seen there.
				handle.close();
			}
			return result;
		}
	}

	@Override
	public Optional<LockHandle> tryLock(LockRequest request) {
		return Optional.ofNullable(this.engine.acquire(request, waitTime(request)));
	}

	@Override
	public LockHandle lock(LockRequest request) {
		Duration waitTime = waitTime(request);
		LockHandle handle = this.engine.acquire(request, waitTime);
		if (handle == null) {
			throw new LockTimeoutException(request.key(), waitTime);
		}
		return handle;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * When the first request has no wait time, the {@linkplain LockOptions#waitTime()
	 * default wait time} is the budget.
	 */
	@Override
	public LockGroup lockAll(List<LockRequest> requests) {
		OrderedAcquisition.requireNotEmpty(requests);
		return OrderedAcquisition.lockAll(this, requests, waitTime(requests.get(0)));
	}

	@Override
	public Optional<Duration> remainingLease(String key) {
		return Optional.ofNullable(this.engine.remainingLease(key));
	}

	private Duration waitTime(LockRequest request) {
		@Nullable Duration waitTime = request.waitTime();
		return (waitTime != null) ? waitTime : options().waitTime();
	}

	/**
	 * Return the options this template runs with: its engine's.
	 * @return the options
	 */
	public LockOptions options() {
		return this.engine.options();
	}

	/**
	 * Shut the engine down gracefully, letting holders finish for up to the given time,
	 * and close it: see {@link LockEngine#shutdown(Duration)}. New acquisitions and
	 * waiting threads fail with a {@link LockShutdownException} from the call on; locks
	 * still held when the grace ends are released in Redis. Calling it again, or
	 * {@link #close()}, has no effect.
	 * @param grace how long holders have to release their locks
	 */
	public void shutdown(Duration grace) {
		this.engine.shutdown(grace);
	}

	/**
	 * Shut the engine down gracefully and close it, as {@link #shutdown(Duration)} with a
	 * grace of {@link LockEngine#CLOSE_GRACE} (5 seconds): from the call on, acquisitions
	 * and waiting threads fail with a {@link LockShutdownException}; holders get the
	 * grace to release, and locks still held then are released in Redis, so that other
	 * instances get them at once. In a Spring application the context does this when it
	 * closes, within its shutdown phase. Calling it again has no effect.
	 */
	@Override
	public void close() {
		this.engine.close();
	}

}
