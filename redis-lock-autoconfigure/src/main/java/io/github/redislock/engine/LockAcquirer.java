package io.github.redislock.engine;

import java.time.Duration;

import io.lettuce.core.RedisCommandInterruptedException;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;

/**
 * The acquire path: reentrancy, the kind's rules about the thread's other holds, the
 * first attempt, the wait, and the observer's timing of it all.
 *
 * <p>
 * A reentrant acquisition of a hold the thread already has costs no round trip; every
 * other grant is Redis's. An exclusive lock held by another thread of this JVM, or waited
 * for by one, is waited for in this JVM's arrival order without asking, and one this JVM
 * yields to other JVMs is not asked for before the yield ends; other kinds ask Redis at
 * once, to queue or to share. Skipping the first attempt only delays attempts that can
 * wait: one without a wait time asks Redis, as {@code tryLock()} barges even into a fair
 * {@link java.util.concurrent.locks.ReentrantLock}. The first attempt does not take a
 * place in line: a waiter at the head of a fair queue, or a writer keeping readers out,
 * must be able to hear its wake-up, so it queues only once subscribed.
 *
 * @author redis-lock
 */
final class LockAcquirer {

	private final LockOptions options;

	private final Acquisition.OwnerTokens tokens;

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final AcquireAttempts attempts;

	private final LockWaiting waiting;

	private final @Nullable LockObserver observer;

	private final EngineShutdown shutdown;

	LockAcquirer(LockOptions options, Acquisition.OwnerTokens tokens, LockScripts scripts, LocalLocks locks,
			AcquireAttempts attempts, LockWaiting waiting, @Nullable LockObserver observer, EngineShutdown shutdown) {
		this.shutdown = shutdown;
		this.options = options;
		this.tokens = tokens;
		this.scripts = scripts;
		this.locks = locks;
		this.attempts = attempts;
		this.waiting = waiting;
		this.observer = observer;
	}

	/**
	 * Acquire a lock, waiting up to the wait time.
	 * @return the calling thread's hold, or {@code null} when the lock stayed held by
	 * another owner
	 * @throws io.github.redislock.LockShutdownException when the engine shuts down
	 * @see RedisLockEngine#acquire(String, String, LockKind, Duration, Duration, boolean)
	 */
	@Nullable LockHold acquire(String key, @Nullable String name, LockKind kind, Duration waitTime, @Nullable Duration leaseTime,
			boolean reentrant) {
		this.shutdown.check(key);
		if (Thread.currentThread().isInterrupted()) {
			// As java.util.concurrent's interruptible waits: an interrupt ends them at
			// once, without a command sent for an acquisition nobody would use.
			throw new LockInterruptedException(key, new InterruptedException("Interrupted before acquiring"));
		}
		LockHold current = this.locks.ofThisThread(kind, key);
		if (reentrant && current != null && reenter(current)) {
			return current;
		}
		String covering = kind.admit(this.locks, key);
		Acquisition acquisition = new Acquisition(kind, key, this.tokens.next(),
				LockLease.millis((leaseTime != null) ? leaseTime : this.options.watchdogLease()), leaseTime == null,
				reentrant, System.nanoTime() + LockLease.nanos(waitTime), covering, true);
		LockObserver observer = this.observer;
		return (observer != null) ? acquireObserved(observer, acquisition, name, waitTime)
				: acquire(acquisition, waitTime);
	}

	/**
	 * Count one more handle of the thread's hold. When the estimate of a renewed lease's
	 * expiry passed but Redis never said it is gone (a renewal's answer is late: a slow
	 * or paused server, a reconnect), Redis is asked once, under the hold's own owner: a
	 * fresh owner would be refused by this very hold.
	 */
	private boolean reenter(LockHold hold) {
		if (hold.tryReenter()) {
			return true;
		}
		LockLease lease = hold.lease();
		if (hold.isReleased() || lease.isMarkedLost() || !lease.isRenewed()) {
			return false;
		}
		long sentAt = System.nanoTime();
		boolean renewed;
		try {
			renewed = this.scripts.renew(lease);
		}
		catch (RedisCommandInterruptedException ex) {
			throw new LockInterruptedException(hold.key(),
					new InterruptedException("Interrupted while Redis was asked whether the lock is still held"));
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(hold.key(), "acquire", ex);
		}
		// A lock that is gone is reported by the watchdog, whose next renewal finds the
		// same.
		if (!renewed) {
			return false;
		}
		lease.renewed(sentAt);
		return hold.tryReenter();
	}

	private @Nullable LockHold acquire(Acquisition acquisition, Duration waitTime) {
		try {
			return acquireOrWait(acquisition, waitTime);
		}
		catch (LockAccessException ex) {
			// A thread past the first check while the engine shuts down
			this.shutdown.checkAfterFailure(acquisition.key(), ex);
			throw ex;
		}
	}

	private @Nullable LockHold acquireOrWait(Acquisition acquisition, Duration waitTime) {
		LockHold hold = null;
		if (waitTime.isZero() || !waitsHere(acquisition)) {
			hold = this.attempts.tryOnce(acquisition.withoutQueueing()).hold();
		}
		if (hold == null && !waitTime.isZero()) {
			hold = this.waiting.await(acquisition);
		}
		return hold;
	}

	/**
	 * Whether an acquisition that may wait skips its first attempt
	 * ({@link LocalLock#skipsFirstAttempt}).
	 */
	private boolean waitsHere(Acquisition acquisition) {
		LocalLock lock = this.locks.find(acquisition.kind(), acquisition.key());
		return lock != null && lock.skipsFirstAttempt(acquisition.kind(), acquisition.key(), Thread.currentThread());
	}

	private @Nullable LockHold acquireObserved(LockObserver observer, Acquisition acquisition, @Nullable String name,
			Duration waitTime) {
		String key = acquisition.key();
		long startedAt = System.nanoTime();
		Object context = observer.acquireStarted(key, name);
		LockHold hold;
		try {
			hold = acquire(acquisition, waitTime);
		}
		catch (RuntimeException ex) {
			GuardedLockObserver.reportAcquireEnded(observer, key, name, context, startedAt, null, ex);
			throw ex;
		}
		GuardedLockObserver.reportAcquireEnded(observer, key, name, context, startedAt, hold, null);
		return hold;
	}

}
