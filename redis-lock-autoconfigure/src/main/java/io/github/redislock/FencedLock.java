package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Lock} that also tells the fencing token of the calling thread's hold, as
 * returned by {@link LockOperations#asLock(LockRequest)}, for code that locks through the
 * JDK's interface (or a framework that does, such as Spring Integration's
 * {@code LockRegistry}) and writes to a fenced resource:
 *
 * <pre class="code">
 * FencedLock lock = lockTemplate.asLock("report");
 * lock.lock();
 * try {
 *     fencedRedis.set("report", text, lock.fencingToken());
 * }
 * finally {
 *     lock.unlock();
 * }
 * </pre>
 *
 * @author redis-lock
 */
public interface FencedLock extends Lock {

	/**
	 * Return the fencing token of the calling thread's most recent hold of this lock
	 * through this object, as {@link LockHandle#fencingToken()} does. A hold that was
	 * lost meanwhile still has its token, which fenced resources refuse once a later
	 * holder used its own: that is what the token is for.
	 * @return the fencing token
	 * @throws IllegalMonitorStateException when the calling thread does not hold the lock
	 * through this object
	 */
	long fencingToken();

	/**
	 * Set the lease of the calling thread's most recent hold of this lock through this
	 * object to the given time from now, as {@link LockHandle#extend(Duration)} does: the
	 * fencing token stays the same, and a lock renewed by the watchdog goes back to the
	 * watchdog's lease at its next renewal.
	 * @param lease how long the lock is to stay held from now; at least 1 ms
	 * @throws IllegalMonitorStateException when the calling thread does not hold the lock
	 * through this object
	 * @throws LockLostException when the lock was lost before it could be extended
	 * @throws LockAccessException when Redis failed
	 * @throws IllegalArgumentException when the lease is under 1 ms
	 */
	void extend(Duration lease);

}
