package io.github.redislock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The lock of the invocation running on this thread: inside a
 * {@link DistributedLock @DistributedLock} method, or inside the action of
 * {@link LockTemplate#execute(LockRequest, java.util.function.Supplier)
 * LockTemplate.execute} or {@code run}, the method body reads its lock and fencing token
 * without a handle being passed down:
 *
 * <pre class="code">
 * &#64;DistributedLock("product:#id")
 * public void sell(long id, long stock) {
 *     fencedRedis.set("stock:" + id, Long.toString(stock - 1), CurrentLock.fencingToken());
 * }
 * </pre>
 *
 * ({@code fencedRedis} is the auto-configured
 * {@code io.github.redislock.fencing.FencedRedisOperations}.)
 *
 * <p>
 * Invocations nest: a locked method calling another sees the inner one's lock while the
 * inner one runs, and its own again once it returned, also when it threw. A method
 * locking several keys reads each by {@link #handle(String) key}. What an invocation
 * holds is visible on the thread that runs it only: work handed to another thread, such
 * as the stages of the {@code CompletableFuture} a locked method returns (whose locks are
 * held until it completes), must take the token along, read on the method's thread. Use
 * the {@link LockHandle} returned by {@link LockOperations#lock(LockRequest) lock},
 * {@link LockOperations#tryLock(LockRequest) tryLock} or
 * {@link LockOperations#lockAll(List) lockAll} for locks taken that way: they open no
 * scope here.
 *
 * <p>
 * A {@link LockOperations} implementation of your own makes its locks visible the same
 * way, by running the action inside {@link #open(LockHandle)} or
 * {@link #open(LockGroup)}.
 *
 * @author redis-lock
 */
public final class CurrentLock {

	// One stack per thread, removed when it empties so that pooled threads keep nothing.
	private static final ThreadLocal<Deque<Scope>> scopes = new ThreadLocal<>();

	private CurrentLock() {
	}

	/**
	 * Return the lock of the innermost invocation running on this thread.
	 * @return the lock's handle
	 * @throws IllegalStateException when no locked invocation runs on this thread, or the
	 * innermost one holds several locks (then call {@link #handle(String)}) or none (an
	 * empty {@link LockGroup})
	 */
	public static LockHandle handle() {
		List<LockHandle> handles = innermost().handles;
		if (handles.isEmpty()) {
			throw new IllegalStateException("The running invocation holds no lock: its LockOperations granted an "
					+ "empty group, so there is no lock or token to return");
		}
		if (handles.size() > 1) {
			throw new IllegalStateException("The running invocation holds several locks " + keys(handles)
					+ ": call CurrentLock.handle(key) or CurrentLock.fencingToken(key) with one of them");
		}
		return handles.get(0);
	}

	/**
	 * Return the lock of the given name held by the innermost invocation running on this
	 * thread, such as one of the keys of a {@code @DistributedLock} method that locks
	 * several.
	 * @param key the lock name, without the configured key prefix
	 * @return the lock's handle
	 * @throws IllegalStateException when no locked invocation runs on this thread, or the
	 * innermost one does not hold that lock
	 */
	public static LockHandle handle(String key) {
		List<LockHandle> handles = innermost().handles;
		for (LockHandle handle : handles) {
			if (handle.key().equals(key)) {
				return handle;
			}
		}
		throw new IllegalStateException(
				"The running invocation does not hold lock '" + key + "'; it holds " + keys(handles)
						+ ". Ask for one of those, or take the lock with LockOperations.lock and use its handle");
	}

	/**
	 * Return the fencing token of the lock of the innermost invocation running on this
	 * thread: a shortcut for {@code handle().fencingToken()}.
	 * @return the fencing token
	 * @throws IllegalStateException as {@link #handle()} does
	 * @see LockHandle#fencingToken()
	 */
	public static long fencingToken() {
		return handle().fencingToken();
	}

	/**
	 * Return the fencing token of the lock of the given name held by the innermost
	 * invocation running on this thread: a shortcut for
	 * {@code handle(key).fencingToken()}.
	 * @param key the lock name, without the configured key prefix
	 * @return the fencing token
	 * @throws IllegalStateException as {@link #handle(String)} does
	 */
	public static long fencingToken(String key) {
		return handle(key).fencingToken();
	}

	/**
	 * Return whether a locked invocation runs on this thread, so that {@link #handle()}
	 * has a lock to return.
	 * @return whether a scope is open on this thread
	 */
	public static boolean isPresent() {
		return scopes.get() != null;
	}

	/**
	 * Make the lock the current one on this thread until the returned scope is closed.
	 * For {@link LockOperations} implementations, around the action they run under it.
	 * @param handle the lock held by the invocation
	 * @return the scope to close, on this thread, when the invocation ends
	 */
	public static Scope open(LockHandle handle) {
		return push(List.of(handle));
	}

	/**
	 * Make the group's locks the current ones on this thread until the returned scope is
	 * closed. For interceptors and {@link LockOperations} implementations, around the
	 * invocation that holds them.
	 * @param group the locks held by the invocation
	 * @return the scope to close, on this thread, when the invocation ends
	 */
	public static Scope open(LockGroup group) {
		return push(group.handles());
	}

	private static Scope push(List<LockHandle> handles) {
		Deque<Scope> stack = scopes.get();
		if (stack == null) {
			stack = new ArrayDeque<>();
			scopes.set(stack);
		}
		Scope scope = new Scope(handles);
		stack.push(scope);
		return scope;
	}

	private static Scope innermost() {
		Deque<Scope> stack = scopes.get();
		if (stack == null) {
			throw new IllegalStateException("No lock is held by an invocation running on this thread: CurrentLock "
					+ "works inside a @DistributedLock method or a LockTemplate.execute or run action, on the thread "
					+ "that runs it. Elsewhere, use the LockHandle returned by lock, tryLock or lockAll, or pass the "
					+ "token read inside the locked method to the code that needs it");
		}
		return stack.peek();
	}

	private static List<String> keys(List<LockHandle> handles) {
		return handles.stream().map(LockHandle::key).toList();
	}

	/**
	 * Return this thread's stack of scopes, for tests: {@code null} once every scope
	 * closed.
	 */
	static @Nullable Deque<Scope> stack() {
		return scopes.get();
	}

	/**
	 * The locks of one invocation, current on the thread that opened it until closed.
	 * Closing it again has no effect.
	 */
	public static final class Scope implements AutoCloseable {

		private final List<LockHandle> handles;

		private final Thread thread = Thread.currentThread();

		private boolean closed;

		private Scope(List<LockHandle> handles) {
			this.handles = List.copyOf(handles);
		}

		/**
		 * End the scope: the enclosing invocation's locks, if any, become current again.
		 * @throws IllegalStateException when called on another thread than the one that
		 * opened the scope, whose stack this thread cannot reach
		 */
		@Override
		public void close() {
			if (Thread.currentThread() != this.thread) {
				throw new IllegalStateException("A CurrentLock scope must be closed on the thread that opened it ("
						+ this.thread.getName() + "), not on " + Thread.currentThread().getName());
			}
			if (this.closed) {
				return;
			}
			this.closed = true;
			Deque<Scope> stack = scopes.get();
			if (stack == null) {
				return;
			}
			// Also drops inner scopes their opener forgot to close, which would otherwise
			// shadow this one's enclosing scope for ever.
			if (stack.contains(this)) {
				Scope popped;
				do {
					popped = stack.pop();
				}
				while (popped != this);
			}
			if (stack.isEmpty()) {
				scopes.remove();
			}
		}

		@Override
		public String toString() {
			return "CurrentLock.Scope" + keys(this.handles);
		}

	}

}
