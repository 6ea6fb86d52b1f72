package io.github.redislock.engine;

import java.time.Duration;

import io.lettuce.core.RedisCommandInterruptedException;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockObserver.AcquireOutcome;
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

	private final OwnerTokens tokens;

	private final LockScripts scripts;

	private final LocalHolds holds;

	private final ReleaseSubscriptions subscriptions;

	private final AcquireAttempts attempts;

	private final LockWaiting waiting;

	private final @Nullable LockObserver observer;

	private final EngineShutdown shutdown;

	LockAcquirer(LockOptions options, OwnerTokens tokens, LockScripts scripts, LocalHolds holds,
			ReleaseSubscriptions subscriptions, AcquireAttempts attempts, LockWaiting waiting,
			@Nullable LockObserver observer, EngineShutdown shutdown) {
		this.shutdown = shutdown;
		this.options = options;
		this.tokens = tokens;
		this.scripts = scripts;
		this.holds = holds;
		this.subscriptions = subscriptions;
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
		LockHold current = this.holds.ofThread(kind, key);
		if (reentrant && LocalHolds.isOwnedByThisThread(current) && reenter(current)) {
			return current;
		}
		String covering = kind.admit(this.holds, key);
		Acquisition acquisition = new Acquisition(kind, key, this.tokens.next(),
				Durations.millis((leaseTime != null) ? leaseTime : this.options.watchdogLease()), leaseTime == null,
				reentrant, System.nanoTime() + Durations.nanos(waitTime), covering, true);
		LockObserver observer = this.observer;
		return (observer != null) ? acquireObserved(observer, acquisition, name, current, waitTime)
				: acquire(acquisition, current, waitTime);
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

	private @Nullable LockHold acquire(Acquisition acquisition, @Nullable LockHold current, Duration waitTime) {
		try {
			return acquireOrWait(acquisition, current, waitTime);
		}
		catch (LockAccessException ex) {
			// A thread past the first check while the engine shuts down
			this.shutdown.checkAfterFailure(acquisition.key(), ex);
			throw ex;
		}
	}

	private @Nullable LockHold acquireOrWait(Acquisition acquisition, @Nullable LockHold current, Duration waitTime) {
		LockHold hold = null;
		LockKind kind = acquisition.kind();
		if (waitTime.isZero() || !waitsHere(kind, acquisition.key(), current)) {
			hold = this.attempts.tryOnce(acquisition.withoutQueueing()).hold();
		}
		if (hold == null && !waitTime.isZero()) {
			hold = this.waiting.await(acquisition);
		}
		return hold;
	}

	/**
	 * Whether an acquisition that may wait skips its first attempt: another thread of
	 * this JVM holds the lock, which surely excludes it, or waits for it ahead of it
	 * ({@link ChannelWaiters}), for a kind whose waiters take no place in line in Redis;
	 * or this JVM yields the lock to other JVMs.
	 */
	private boolean waitsHere(LockKind kind, String key, @Nullable LockHold current) {
		String channel = kind.channel(this.scripts.keys(), key);
		if (!kind.queues() && (LocalHolds.isHeldByAnotherThread(current) || this.subscriptions.hasQueued(channel))) {
			return true;
		}
		return kind.yields() && this.subscriptions.yieldingNanos(channel) > 0;
	}

	private @Nullable LockHold acquireObserved(LockObserver observer, Acquisition acquisition, @Nullable String name,
			@Nullable LockHold current, Duration waitTime) {
		String key = acquisition.key();
		long startedAt = System.nanoTime();
		Object context = observer.acquireStarted(key, name);
		LockHold hold;
		try {
			hold = acquire(acquisition, current, waitTime);
		}
		catch (RuntimeException ex) {
			AcquireOutcome outcome = (ex instanceof LockInterruptedException) ? AcquireOutcome.INTERRUPTED
					: AcquireOutcome.FAILED;
			observer.acquireEnded(key, context, outcome, System.nanoTime() - startedAt, ex);
			throw ex;
		}
		long waitNanos = System.nanoTime() - startedAt;
		if (hold == null) {
			observer.acquireEnded(key, context, AcquireOutcome.TIMED_OUT, waitNanos, null);
			return null;
		}
		observer.acquireEnded(key, context, AcquireOutcome.ACQUIRED, waitNanos, null);
		hold.observed(observer.held(key, name, hold.fencingToken(), context));
		return hold;
	}

}
