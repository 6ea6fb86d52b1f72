package io.github.redislock.engine;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The hold of each lock this JVM holds now, for reentrancy, the rules between a thread's
 * holds of one lock and diagnostics. Keyed by {@link HoldKey}: the lock name, the Redis
 * state it stands for, and for a read lock the thread, since several threads of a JVM
 * hold one read lock at once.
 *
 * <p>
 * A key's hold changes in three ways: a grant from Redis puts its hold in place of any
 * earlier one, a pass ({@link HandOver}) replaces the hold it follows only if that is
 * still in place, and a release removes its own hold only. So a late pass never takes the
 * place of a newer grant, and a late release never removes one.
 *
 * @author redis-lock
 */
final class LocalHolds {

	private final ConcurrentHashMap<HoldKey, LockHold> holds = new ConcurrentHashMap<>();

	/** The hold under which the calling thread would find its hold of the lock. */
	@Nullable LockHold ofThread(LockKind kind, String name) {
		return this.holds.get(kind.holdKey(name, Thread.currentThread()));
	}

	/** The calling thread's own hold of the lock, or {@code null}. */
	@Nullable LockHold ofThisThread(LockKind kind, String name) {
		LockHold hold = ofThread(kind, name);
		return isOwnedByThisThread(hold) ? hold : null;
	}

	/**
	 * Record a hold granted by Redis, in the place of any other.
	 * @return the hold it replaced, or {@code null}
	 */
	@Nullable LockHold granted(LockHold hold) {
		return this.holds.put(hold.holdKey(), hold);
	}

	/**
	 * Record a hold passed from another thread of this JVM ({@link HandOver}), in the
	 * place of the hold it follows; false when that place was taken meanwhile by a grant
	 * from Redis, which means the grant being passed had ended there.
	 */
	boolean handedOver(LockHold previous, LockHold next) {
		return this.holds.replace(next.holdKey(), previous, next);
	}

	/** Forget a released hold, unless another took its place. */
	void released(LockHold hold) {
		this.holds.remove(hold.holdKey(), hold);
	}

	int size() {
		return this.holds.size();
	}

	Collection<LockHold> all() {
		return this.holds.values();
	}

	static boolean isOwnedByThisThread(@Nullable LockHold hold) {
		return hold != null && hold.ownerThread() == Thread.currentThread();
	}

	/**
	 * The hold of the lock that excludes a pending acquisition of its kind: the hold of
	 * any owner of this JVM, since a pending acquisition owns none, and for a read lock
	 * none (readers share).
	 */
	@Nullable LockHold ofLock(LockKind kind, String name) {
		return this.holds.get(kind.holdKey(name, null));
	}

	/** Whether the hold is held and not released: by another owner, for a pending one. */
	static boolean isHeld(@Nullable LockHold hold) {
		return hold != null && !hold.isReleased() && hold.isHeld();
	}

	static boolean isHeldByAnotherThread(@Nullable LockHold hold) {
		return hold != null && hold.ownerThread() != Thread.currentThread() && !hold.isReleased() && hold.isHeld();
	}

}
