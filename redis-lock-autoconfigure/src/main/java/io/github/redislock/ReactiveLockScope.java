package io.github.redislock;

import org.jspecify.annotations.Nullable;

import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The locks held by the {@link ReactiveLockTemplate} executions that enclose a
 * subscriber, as its Reactor Context carries them: one scope per execution, innermost
 * first, each linked to the one around it. Immutable, as Context values must be: an inner
 * execution adds its scope to its action's Context only.
 *
 * @author redis-lock
 */
final class ReactiveLockScope {

	/** The Context key; a private object, so that no other code reads or replaces it. */
	private static final Object CONTEXT_KEY = new Object() {

		@Override
		public String toString() {
			return "redis-lock held locks";
		}

	};

	private final LockRequest request;

	private final LockHandle handle;

	private final @Nullable ReactiveLockScope outer;

	private ReactiveLockScope(LockRequest request, LockHandle handle, @Nullable ReactiveLockScope outer) {
		this.request = request;
		this.handle = handle;
		this.outer = outer;
	}

	/** The innermost scope of the Context, or {@code null} when it holds no lock. */
	static @Nullable ReactiveLockScope of(ContextView context) {
		return context.getOrDefault(CONTEXT_KEY, null);
	}

	/** The Context of an execution's action: the given one, with a scope for the lock. */
	static Context enter(Context context, LockRequest request, LockHandle handle) {
		return context.put(CONTEXT_KEY, new ReactiveLockScope(request, handle, of(context)));
	}

	LockHandle handle() {
		return this.handle;
	}

	/** The innermost scope, this one or one around it, that holds the lock of the key. */
	@Nullable ReactiveLockScope find(String key) {
		for (ReactiveLockScope scope = this; scope != null; scope = scope.outer) {
			if (scope.request.key().equals(key)) {
				return scope;
			}
		}
		return null;
	}

	/**
	 * The handle an execution that this scope encloses re-enters, without a round trip,
	 * as a thread re-enters its locks: an exclusive or fair lock re-enters either, a
	 * write lock a write or a read, a read lock a read. Only requests that are reentrant,
	 * into holds whose requests were, and that are still held.
	 * @return the handle to share, or {@code null} when the request must acquire
	 * @throws IllegalStateException when the request is for the write lock of a read lock
	 * the chain holds without its write lock: a reader cannot upgrade
	 */
	@Nullable LockHandle reenter(LockRequest request) {
		if (!request.isReentrant()) {
			return null;
		}
		boolean reading = false;
		for (ReactiveLockScope scope = this; scope != null; scope = scope.outer) {
			LockRequest held = scope.request;
			if (!held.key().equals(request.key()) || !held.isReentrant()) {
				continue;
			}
			if (covers(held.mode(), request.mode()) && scope.handle.isHeld()) {
				return scope.handle;
			}
			reading |= held.mode() == LockMode.READ;
		}
		if (reading && request.mode() == LockMode.WRITE) {
			throw new IllegalStateException("This reactive chain holds the read lock '" + request.key()
					+ "' and asks for its write lock: a reader cannot upgrade, since two readers doing so would wait "
					+ "for each other for ever; release the read lock first, or take the write lock from the start");
		}
		return null;
	}

	private static boolean covers(LockMode held, LockMode requested) {
		return switch (held) {
			case EXCLUSIVE -> requested == LockMode.EXCLUSIVE;
			case WRITE -> requested == LockMode.WRITE || requested == LockMode.READ;
			case READ -> requested == LockMode.READ;
			case PERMIT -> requested == LockMode.PERMIT;
		};
	}

}
