package io.github.redislock;

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

}
