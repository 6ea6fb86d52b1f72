package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The {@link LocalLock} of each lock this JVM holds, waits for or keeps subscribed, by
 * release channel. An entry is made by the first grant or waiter in the map's atomic
 * compute, and dropped in another once nothing needs it, so that a hold or a waiter never
 * lands in an entry on its way out.
 *
 * @author redis-lock
 */
final class LocalLocks {

	private final ConcurrentHashMap<String, LocalLock> locks = new ConcurrentHashMap<>();

	private final String keyPrefix;

	LocalLocks(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	String channel(LockKind kind, String name) {
		return kind.channel(this.keyPrefix, name);
	}

	/** The entry of the channel, or {@code null} when this JVM knows nothing of it. */
	@Nullable LocalLock find(String channel) {
		return this.locks.get(channel);
	}

	@Nullable LocalLock find(LockKind kind, String name) {
		return this.locks.get(channel(kind, name));
	}

	/**
	 * The entry of the channel with the calling thread counted as joining its waiters, in
	 * one atomic step, so that the entry is not dropped before the thread queues.
	 */
	LocalLock startJoining(String channel) {
		return update(channel, LocalLock::startJoining);
	}

	/** Record a hold granted by Redis; returns the hold of its key it replaced. */
	@Nullable LockHold granted(LockHold hold) {
		LockHold[] replaced = new LockHold[1];
		update(channel(hold), (lock) -> replaced[0] = lock.granted(hold));
		return replaced[0];
	}

	/** Forget a released hold, and its entry when nothing else needs it. */
	void released(LockHold hold) {
		this.locks.computeIfPresent(channel(hold), (name, lock) -> {
			lock.released(hold);
			return lock.isUnused() ? null : lock;
		});
	}

	/** Yield the lock to other JVMs ({@link LocalLock#yieldFor}), keeping its entry. */
	LocalLock yieldFor(String channel, long nanos) {
		return update(channel, (lock) -> lock.yieldFor(nanos));
	}

	/**
	 * Wake one local waiter of the channel, which asks Redis: after a release of this JVM
	 * that no message of its own wakes here, or a lock found lost, which may be free.
	 */
	void wakeOne(String channel) {
		LocalLock lock = find(channel);
		if (lock != null) {
			lock.signalOne();
		}
	}

	/** The calling thread's hold of the lock, or {@code null}. */
	@Nullable LockHold ofThisThread(LockKind kind, String name) {
		LocalLock lock = find(kind, name);
		LockHold hold = (lock != null) ? lock.hold(kind.holdKey(name, Thread.currentThread())) : null;
		return (hold != null && hold.ownerThread() == Thread.currentThread()) ? hold : null;
	}

	List<LockHold> holds() {
		List<LockHold> holds = new ArrayList<>();
		this.locks.values().forEach((lock) -> lock.collectHolds(holds));
		return holds;
	}

	int holdCount() {
		return this.locks.values().stream().mapToInt(LocalLock::holdCount).sum();
	}

	/** The entries by channel, for the subscriptions, which walk and sweep them. */
	ConcurrentHashMap<String, LocalLock> byChannel() {
		return this.locks;
	}

	private String channel(LockHold hold) {
		return channel(hold.lease().kind(), hold.key());
	}

	/** Change the channel's entry, made if there is none, in the map's atomic compute. */
	private LocalLock update(String channel, Consumer<LocalLock> change) {
		return this.locks.compute(channel, (name, existing) -> {
			LocalLock lock = (existing != null) ? existing : new LocalLock();
			change.accept(lock);
			return lock;
		});
	}

}
