package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

/**
 * Gives back, in the background, what Redis may have granted to an owner that cannot use
 * it (an answer lost or late, a grant refused for want of replicas, a release that
 * failed), owner-checked, taking the owner out of any line it joined. It is tried again
 * while it fails (after 50 ms, doubling to a second), scheduled, not slept, until the
 * grant's lease would have ended anyway: a lost answer never leaves a lock held for its
 * whole lease, and a Redis that stays away costs one warning.
 *
 * @author redis-lock
 */
final class BackgroundReleases {

	private static final Log logger = LogFactory.getLog(BackgroundReleases.class);

	private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private static final long LAST_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final EngineThreads threads;

	/** Releases whose last attempt failed, tried again. */
	private final AtomicInteger retrying = new AtomicInteger();

	BackgroundReleases(LockScripts scripts, LocalLocks locks, EngineThreads threads) {
		this.scripts = scripts;
		this.locks = locks;
		this.threads = threads;
	}

	/** Release in the background whatever the owner may hold of the lock. */
	void giveBack(LockKind kind, String key, String owner, long leaseMillis) {
		giveBack(kind, key, owner, 0, leaseMillis);
	}

	/**
	 * Release in the background whatever the owner may hold of the lock.
	 * @param fence the greatest fencing token given to a holder of the grant, kept as the
	 * lock's last ({@link LockKind#release}); 0 when not known
	 * @param leaseMillis how long its grant's lease may still last: trying longer is
	 * pointless
	 */
	void giveBack(LockKind kind, String key, String owner, long fence, long leaseMillis) {
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		this.threads.execute(() -> giveBack(kind, key, owner, fence, until, FIRST_RETRY_NANOS));
	}

	/** How many releases failed and are tried again now. */
	int retryingCount() {
		return this.retrying.get();
	}

	private void giveBack(LockKind kind, String key, String owner, long fence, long untilNanos, long retryNanos) {
		boolean retried = retryNanos != FIRST_RETRY_NANOS;
		boolean released = tryGiveBack(kind, key, owner, fence);
		if (!released && System.nanoTime() + retryNanos - untilNanos < 0) {
			if (!retried) {
				this.retrying.incrementAndGet();
			}
			this.threads.later(
					() -> giveBack(kind, key, owner, fence, untilNanos, Math.min(retryNanos * 2, LAST_RETRY_NANOS)),
					retryNanos);
			return;
		}
		if (retried) {
			this.retrying.decrementAndGet();
		}
		if (!released) {
			logger.warn(LogMessage.format(
					"Could not release lock '%s' after a failed acquisition or release; it expires with its lease",
					key));
		}
	}

	private boolean tryGiveBack(LockKind kind, String key, String owner, long fence) {
		try {
			kind.giveBack(this.scripts, key, owner, fence);
			// As a release does (LockReleaser): the message of an exclusive lock or a
			// permit
			// names an owner of this JVM, which wakes no waiter here.
			this.locks.wakeOne(this.locks.channel(kind, key));
			return true;
		}
		catch (RuntimeException ex) {
			logger.debug(LogMessage.format("Could not release lock '%s' in the background; trying again", key), ex);
			return false;
		}
	}

}
