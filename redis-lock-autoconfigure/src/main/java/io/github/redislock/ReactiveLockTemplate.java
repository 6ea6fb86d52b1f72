package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.log.LogMessage;

/**
 * The standard {@link ReactiveLockOperations}: acquires through a {@link LockEngine}'s
 * non-blocking {@link LockEngine#acquireAsync acquireAsync}, with the wait resolved from
 * the engine's {@linkplain LockOptions options} as {@link LockTemplate} does, and keeps
 * the locks of a chain in its Reactor Context for reentrancy and
 * {@link ReactiveCurrentLock}. Usable with or without a Spring context, beside a
 * {@link LockTemplate} on the same engine (blocking and reactive callers of one key then
 * exclude each other as any two callers do):
 *
 * <pre class="code">
 * RedisLockEngine engine = new RedisLockEngine(connectionFactory, options);
 * ReactiveLockTemplate locks = new ReactiveLockTemplate(engine);
 * Mono&lt;Report&gt; report = locks.execute("report:daily", reports.build());
 * </pre>
 *
 * Fair and read/write requests work as with {@link LockTemplate}, with the same fencing
 * tokens, watchdog renewal and observations. A {@code RedisLockEngine} completes grants
 * and releases on its background executor, never on the Redis client's threads, so the
 * action is subscribed to there, and the result is emitted there: move long or blocking
 * work elsewhere with {@code publishOn}. A request's
 * {@link LockRequest#reentrant(boolean) reentrant(false)} keeps nested executions of the
 * same chain from re-entering its lock: they wait for it. Thread-safe; closing the engine
 * is the caller's business, as this template holds nothing of its own.
 *
 * @author redis-lock
 */
public class ReactiveLockTemplate implements ReactiveLockOperations {

	private static final Log logger = LogFactory.getLog(ReactiveLockTemplate.class);

	private final LockEngine engine;

	/**
	 * Create a template on the given engine, such as a
	 * {@code io.github.redislock.engine.RedisLockEngine}.
	 * @param engine grants and releases the locks without blocking
	 */
	public ReactiveLockTemplate(LockEngine engine) {
		if (engine == null) {
			throw new IllegalArgumentException("The lock engine must not be null");
		}
		this.engine = engine;
	}

	@Override
	public <T> Mono<T> execute(LockRequest request, Mono<T> action) {
		check(request, action);
		return Mono.deferContextual((context) -> {
			ReactiveLockScope scope = ReactiveLockScope.of(context);
			LockHandle reentered = (scope != null) ? scope.reenter(request) : null;
			if (reentered != null) {
				return action.contextWrite((inner) -> ReactiveLockScope.enter(inner, request, reentered))
					.flatMap((value) -> stillHeld(reentered).thenReturn(value))
					.switchIfEmpty(stillHeld(reentered).then(Mono.empty()));
			}
			return Mono
				.usingWhen(acquire(request),
						(handle) -> action.contextWrite((inner) -> ReactiveLockScope.enter(inner, request, handle)),
						this::release, this::releaseAfterError, this::releaseAfterCancel)
				.onErrorMap(ReactiveLockTemplate::releaseFailure);
		});
	}

	@Override
	public <T> Flux<T> executeMany(LockRequest request, Flux<T> action) {
		check(request, action);
		return Flux.deferContextual((context) -> {
			ReactiveLockScope scope = ReactiveLockScope.of(context);
			LockHandle reentered = (scope != null) ? scope.reenter(request) : null;
			if (reentered != null) {
				return whileHeld(action, reentered)
					.contextWrite((inner) -> ReactiveLockScope.enter(inner, request, reentered))
					.concatWith(stillHeld(reentered));
			}
			return Flux
				.usingWhen(acquire(request),
						(handle) -> whileHeld(action, handle)
							.contextWrite((inner) -> ReactiveLockScope.enter(inner, request, handle)),
						this::release, this::releaseAfterError, this::releaseAfterCancel)
				.onErrorMap(ReactiveLockTemplate::releaseFailure);
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The budget is the first request's wait time, or else the engine's default wait
	 * time, as for {@link LockTemplate#lockAll(List)}.
	 */
	@Override
	public <T> Mono<T> execute(List<LockRequest> requests, Mono<T> action) {
		return ReactiveOrderedAcquisition.execute(this, requests, budget(requests), action);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The budget is the first request's wait time, or else the engine's default wait
	 * time, as for {@link LockTemplate#lockAll(List)}.
	 */
	@Override
	public <T> Flux<T> executeMany(List<LockRequest> requests, Flux<T> action) {
		return ReactiveOrderedAcquisition.executeMany(this, requests, budget(requests), action);
	}

	private @Nullable Duration budget(@Nullable List<LockRequest> requests) {
		return (requests != null && !requests.isEmpty() && requests.get(0) != null) ? waitTime(requests.get(0)) : null;
	}

	/**
	 * The action's elements while the lock is held: once it is found lost, the action is
	 * cancelled and the result fails, rather than pass on elements computed without
	 * protection.
	 */
	private static <T> Flux<T> whileHeld(Flux<T> action, LockHandle handle) {
		return action.handle((element, sink) -> {
			if (handle.isHeld()) {
				sink.next(element);
			}
			else {
				sink.error(new LockLostException(handle.key(), handle.fencingToken()));
			}
		});
	}

	/**
	 * Fails with {@link LockLostException} when the lock is found lost, as the release of
	 * an execution that re-entered a lock does, which leaves the lock to the enclosing
	 * one.
	 */
	private static <T> Mono<T> stillHeld(LockHandle handle) {
		return Mono.defer(() -> handle.isHeld() ? Mono.empty()
				: Mono.error(new LockLostException(handle.key(), handle.fencingToken())));
	}

	/**
	 * The grant of the request, on subscription; cancelling the subscription withdraws
	 * the acquisition, and a grant that raced with the cancel is released.
	 */
	private Mono<LockHandle> acquire(LockRequest request) {
		Duration waitTime = waitTime(request);
		return Mono.defer(() -> {
			CompletableFuture<@Nullable LockHandle> grant = this.engine.acquireAsync(request, waitTime);
			return Mono.fromFuture(grant, false);
		})
			.switchIfEmpty(Mono.error(() -> new LockTimeoutException(request.key(), waitTime)))
			.doOnDiscard(LockHandle.class, (handle) -> releaseAfterCancel(handle).subscribe());
	}

	/**
	 * The exception of a release that failed after the action completed: Reactor wraps it
	 * in a plain {@link RuntimeException} ("Async resource cleanup failed after
	 * onComplete"), which would hide the {@link LockLostException} or
	 * {@link LockAccessException} that the subscriber must get.
	 */
	private static Throwable releaseFailure(Throwable ex) {
		return (ex.getClass() == RuntimeException.class && ex.getCause() instanceof LockException cause) ? cause : ex;
	}

	private Mono<Void> release(LockHandle handle) {
		return Mono.fromCompletionStage(handle::closeAsync);
	}

	/**
	 * Release after the action failed: its error is what the subscriber gets, with a
	 * failed release added to it as a suppressed exception, as try-with-resources does.
	 */
	private Mono<Void> releaseAfterError(LockHandle handle, Throwable error) {
		return release(handle).onErrorResume((ex) -> {
			if (!(error instanceof LockLostException && ex instanceof LockLostException) && error != ex) {
				error.addSuppressed(ex);
			}
			return Mono.empty();
		});
	}

	/** Release after the subscriber cancelled, which no failure can reach. */
	private Mono<Void> releaseAfterCancel(LockHandle handle) {
		return release(handle).onErrorResume((ex) -> {
			logger.debug(LogMessage.format("Lock '%s', released as its subscriber cancelled: %s", handle.key(),
					ex.getMessage()), ex);
			return Mono.empty();
		});
	}

	private Duration waitTime(LockRequest request) {
		Duration waitTime = request.waitTime();
		return (waitTime != null) ? waitTime : this.engine.options().waitTime();
	}

	private static void check(@Nullable LockRequest request, @Nullable Object action) {
		if (request == null) {
			throw new IllegalArgumentException("The lock request must not be null; use LockRequest.of(key)");
		}
		if (action == null) {
			throw new IllegalArgumentException("The action to run under lock '" + request.key()
					+ "' must not be null; pass Mono.empty() for none");
		}
	}

}
