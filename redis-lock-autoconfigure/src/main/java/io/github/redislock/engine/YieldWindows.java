package io.github.redislock.engine;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The locks this JVM yields to other JVMs now, each until when.
 *
 * <h2>Design notes</h2>
 *
 * A thread that releases a lock and at once asks for it again would nearly always beat a
 * waiter of another JVM, which must first receive the release message. So when a thread
 * of another JVM waits (the acquire script flags the grant when it refuses a thread of
 * another JVM than the holder's, and the release script reports the flag), the threads of
 * this JVM leave the lock alone until a release by another JVM arrives (each release
 * message names its owner, whose token begins with its JVM's instance id), or for a
 * bounded time if none does, and the waiter elsewhere gets its turn. A JVM that merely
 * stays subscribed after its waiters left triggers no yield. The grant that follows such
 * a release is flagged in Redis too, so that its release publishes though nobody was
 * refused: this JVM's threads wait for that message without asking Redis
 * ({@code release.lua}).
 *
 * <p>
 * Only for a kind that {@linkplain LockKind#yields() yields}. A window is opened by the
 * releasing thread ({@link #open}), ended by the release message of another JVM
 * ({@link #end}) or by its time, and an expired one is dropped by the periodic sweep
 * ({@link #expire}); a window read after its time reads as none, whether or not it was
 * dropped yet. Keyed by release channel, which names the lock.
 *
 * @author redis-lock
 */
final class YieldWindows {

	/** Until when ({@link System#nanoTime()}) this JVM yields each lock. */
	private final ConcurrentHashMap<String, Long> windows = new ConcurrentHashMap<>();

	/**
	 * How long this JVM still yields the lock to other JVMs; 0 or less when it does not.
	 */
	long yieldingNanos(String channel) {
		Long until = this.windows.get(channel);
		return (until != null) ? until - System.nanoTime() : 0;
	}

	/** Yield the lock for the given time at most. */
	void open(String channel, long nanos) {
		this.windows.put(channel, System.nanoTime() + nanos);
	}

	/** Another JVM had its turn: this one yields no longer. */
	void end(String channel) {
		this.windows.remove(channel);
	}

	/** Drop the windows that ended by the given time. */
	void expire(long now) {
		this.windows.values().removeIf((until) -> until - now <= 0);
	}

}
