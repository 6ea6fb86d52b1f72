package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

/**
 * Gives back, in the background, what Redis may have granted to an owner that cannot use
 * it: an acquisition whose answer was lost or came too late, a grant refused for want of
 * replicas, a release that failed. The release is owner-checked, so it frees only what
 * that owner holds, and takes the owner out of any line it joined.
 *
 * <p>
 * It runs on the engine's {@link EngineThreads}, never on a caller's, and is tried again
 * while it fails (50 ms after the first failure, doubling to a second) until the grant's
 * lease would have ended anyway: a lost answer never leaves a lock held for its whole
 * lease, and a Redis that stays unreachable costs one warning. Retries are scheduled, not
 * slept, so that no thread is held while Redis is away.
 *
 * @author redis-lock
 */
final class BackgroundReleases {

	private static final Log logger = LogFactory.getLog(BackgroundReleases.class);

	/** How soon a failed background release is tried again, the first time. */
	private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	/** How soon a failed background release is tried again at most. */
	private static final long LAST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final EngineThreads threads;

	/** Releases whose last attempt failed and that are tried again. */
	private final AtomicInteger retrying = new AtomicInteger();

	BackgroundReleases(LockScripts scripts, LocalLocks locks, EngineThreads threads) {
		this.scripts = scripts;
		this.locks = locks;
		this.threads = threads;
	}

	/**
	 * Release in the background whatever the owner may hold of the lock.
	 * @param leaseMillis how long its grant's lease may still last, after which trying
	 * again is pointless
	 */
	void giveBack(LockKind kind, String key, String owner, long leaseMillis) {
		giveBack(kind, key, owner, 0, leaseMillis);
	}

	/**
	 * Release in the background whatever the owner may hold of the lock, keeping the
	 * given fence as its last fencing token.
	 * @param fence the greatest fencing token given to a holder of the grant
	 * ({@link LockKind#release}); 0 when not known
	 * @param leaseMillis how long its grant's lease may still last, after which trying
	 * again is pointless
	 */
	void giveBack(LockKind kind, String key, String owner, long fence, long leaseMillis) {
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		this.threads.execute(() -> giveBack(kind, key, owner, fence, until, FIRST_RETRY_NANOS));
	}

	/**
	 * Return how many releases failed and are tried again now.
	 * @return the number of releases being retried
	 */
	int retryingCount() {
		return this.retrying.get();
	}

	private void giveBack(LockKind kind, String key, String owner, long fence, long untilNanos, long retryNanos) {
		boolean retry = retryNanos != FIRST_RETRY_NANOS;
		if (tryGiveBack(kind, key, owner, fence)) {
			endRetry(retry);
			return;
		}
		if (System.nanoTime() + retryNanos - untilNanos >= 0) {
			endRetry(retry);
			logger.warn(LogMessage.format(
					"Could not release lock '%s' after a failed acquisition or release; it expires with its lease",
					key));
			return;
		}
		if (!retry) {
			this.retrying.incrementAndGet();
		}
		this.threads.later(
				() -> giveBack(kind, key, owner, fence, untilNanos, Math.min(retryNanos * 2, LAST_RETRY_NANOS)),
				retryNanos);
	}

	private void endRetry(boolean retry) {
		if (retry) {
			this.retrying.decrementAndGet();
		}
	}

	private boolean tryGiveBack(LockKind kind, String key, String owner, long fence) {
		try {
			releaseByOwner(kind, key, owner, fence);
			return true;
		}
		catch (RuntimeException ex) {
			logger.debug(LogMessage.format("Could not release lock '%s' after a failed acquisition; trying again", key),
					ex);
			return false;
		}
	}

	/**
	 * Release, owner-checked, what the owner may hold, and take it out of any line.
	 * @throws RuntimeException from the Redis client when Redis failed
	 */
	private void releaseByOwner(LockKind kind, String key, String owner, long fence) {
		kind.giveBack(this.scripts, key, owner, fence);
		if (kind.yields()) {
			// Its message names an owner of this JVM, which wakes no local waiter by
			// itself.
			this.locks.wakeOne(this.locks.channel(kind, key));
		}
	}

}
