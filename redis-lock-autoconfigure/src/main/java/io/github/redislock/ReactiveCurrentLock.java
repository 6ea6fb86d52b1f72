package io.github.redislock;

import java.util.Optional;

import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The lock of the {@link ReactiveLockOperations} execution that runs a reactive action,
 * read from the action's Reactor Context: the reactive counterpart of
 * {@link CurrentLock}, which reads a thread's invocation and so cannot see a reactive
 * chain, whose work hops between threads.
 *
 * <pre class="code">
 * reactiveLocks.execute("product:" + id, ReactiveCurrentLock.fencingToken()
 *     .flatMap((token) -&gt; fencedStock.decrement(id, token)));
 * </pre>
 *
 * Executions nest: inside an inner execution the innermost lock is its own, and the outer
 * ones are found by key. A re-entered lock (the same key nested in one chain) is the
 * enclosing execution's, with its fencing token. The handles returned here belong to the
 * execution, which releases them: read them, never close them. Outside an execution (or
 * in work subscribed elsewhere, whose Context does not carry the lock) the {@code Mono}s
 * fail with {@link IllegalStateException}, and the {@code ContextView} variants return
 * empty.
 *
 * @author redis-lock
 */
public final class ReactiveCurrentLock {

	private ReactiveCurrentLock() {
	}

	/**
	 * Return the lock of the innermost execution that runs the subscriber.
	 * @return the lock's handle; fails with {@link IllegalStateException} outside an
	 * execution
	 */
	public static Mono<LockHandle> handle() {
		return Mono.deferContextual((context) -> handle(context).map(Mono::just)
			.orElseGet(() -> Mono.error(new IllegalStateException("No reactive lock execution runs this subscriber: "
					+ "ReactiveCurrentLock works inside the action of a ReactiveLockOperations execute or executeMany, "
					+ "whose Reactor Context carries the lock; pass the token on to work subscribed elsewhere"))));
	}

	/**
	 * Return the lock of the given name held by the innermost execution of that key that
	 * runs the subscriber.
	 * @param key the lock name, without the configured key prefix
	 * @return the lock's handle; fails with {@link IllegalStateException} when no
	 * enclosing execution holds that lock
	 */
	public static Mono<LockHandle> handle(String key) {
		return Mono.deferContextual((context) -> handle(context, key).map(Mono::just)
			.orElseGet(() -> Mono.error(new IllegalStateException("No reactive lock execution of '" + key
					+ "' runs this subscriber; ask for a lock an enclosing execute or executeMany holds"))));
	}

	/**
	 * Return the fencing token of the lock of the innermost execution that runs the
	 * subscriber: a shortcut for {@code handle().map(LockHandle::fencingToken)}.
	 * @return the token; fails as {@link #handle()} does
	 * @see LockHandle#fencingToken()
	 */
	public static Mono<Long> fencingToken() {
		return handle().map(LockHandle::fencingToken);
	}

	/**
	 * Return the fencing token of the lock of the given name: a shortcut for
	 * {@code handle(key).map(LockHandle::fencingToken)}.
	 * @param key the lock name, without the configured key prefix
	 * @return the token; fails as {@link #handle(String)} does
	 */
	public static Mono<Long> fencingToken(String key) {
		return handle(key).map(LockHandle::fencingToken);
	}

	/**
	 * Return the lock of the innermost execution whose Context this is, for code that
	 * reads a Context itself, such as in {@code Mono.deferContextual} or
	 * {@code Flux.contextWrite}.
	 * @param context the subscriber's Context
	 * @return the lock's handle, or empty outside an execution
	 */
	public static Optional<LockHandle> handle(ContextView context) {
		ReactiveLockScope scope = ReactiveLockScope.of(context);
		return Optional.ofNullable((scope != null) ? scope.handle() : null);
	}

	/**
	 * Return the lock of the given name held by an execution whose Context this is.
	 * @param context the subscriber's Context
	 * @param key the lock name, without the configured key prefix
	 * @return the lock's handle, or empty when no enclosing execution holds it
	 */
	public static Optional<LockHandle> handle(ContextView context, String key) {
		ReactiveLockScope scope = ReactiveLockScope.of(context);
		ReactiveLockScope found = (scope != null) ? scope.find(key) : null;
		return Optional.ofNullable((found != null) ? found.handle() : null);
	}

}
