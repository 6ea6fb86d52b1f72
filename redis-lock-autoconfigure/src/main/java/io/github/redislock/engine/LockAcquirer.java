package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.lettuce.core.RedisCommandInterruptedException;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.engine.AcquireAttempts.Outcome;

/**
 * The acquire paths, blocking and not: reentrancy, the kind's rules about the thread's
 * other holds, the first attempt, the wait, and the observer's timing of it all. A thread
 * waits in a loop here; a caller that must not block gets a {@link PendingAcquisition},
 * which takes the same steps in rounds ({@link LocalLock#sleepBeforeAsking}), and
 * releases without waiting.
 *
 * <p>
 * The first attempt takes no place in line: a waiter at the head of a fair queue, or a
 * writer keeping readers out, must hear its wake-up, so it queues only once subscribed
 * (see {@link ReleaseSubscriptions}' design note). Leaving without the lock, it leaves
 * its line in Redis at once rather than hold up those behind it. Pending acquisitions run
 * on the {@link EngineThreads}.
 *
 * @author redis-lock
 */
record LockAcquirer(LockOptions options, Acquisition.OwnerTokens tokens, LockScripts scripts, LocalLocks locks,
		ReleaseSubscriptions subscriptions, AcquireAttempts attempts, LockReleaser releaser, EngineShutdown shutdown,
		EngineThreads threads, @Nullable LockObserver observer) {

	/** How often a waiter renews its place in line while nothing wakes it sooner. */
	private static final long LINE_RENEW_NANOS = TimeUnit.MILLISECONDS.toNanos(Acquisition.LINE_LEASE_MILLIS / 3);

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
			// As java.util.concurrent's interruptible waits: no command is sent for an
			// acquisition nobody would use.
			throw new LockInterruptedException(key, new InterruptedException("Interrupted before acquiring"));
		}
		LockHold current = this.locks.ofThisThread(kind, key);
		if (reentrant && current != null && reenter(current)) {
			return current;
		}
		Acquisition acquisition = Acquisition.of(kind, key, this.tokens.next(), leaseTime, this.options, waitTime,
				reentrant, kind.admit(this.locks, key));
		LockObserver observer = this.observer;
		if (observer == null) {
			return acquire(acquisition, waitTime);
		}
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

	/**
	 * Count one more handle of the thread's hold. When a renewed lease's estimated expiry
	 * passed but Redis never said it is gone (a late renewal answer), Redis is asked
	 * once, under the hold's own owner: a fresh owner would be refused by this very hold.
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
		// The watchdog's next renewal finds and reports a lock that is gone.
		if (!renewed) {
			return false;
		}
		lease.renewed(sentAt);
		return hold.tryReenter();
	}

	private @Nullable LockHold acquire(Acquisition acquisition, Duration waitTime) {
		try {
			LockHold hold = null;
			if (waitTime.isZero() || !skipsFirstAttempt(acquisition)) {
				hold = this.attempts.tryOnce(acquisition.withoutQueueing()).hold();
			}
			return (hold == null && !waitTime.isZero()) ? await(acquisition) : hold;
		}
		catch (LockAccessException ex) {
			// A thread may pass the first check just as the engine shuts down.
			this.shutdown.checkAfterFailure(acquisition.key(), ex);
			throw ex;
		}
	}

	private boolean skipsFirstAttempt(Acquisition acquisition) {
		LocalLock lock = this.locks.find(acquisition.kind(), acquisition.key());
		return lock != null && lock.skipsFirstAttempt(acquisition.kind(), acquisition.key(), Thread.currentThread());
	}

	/** Wait as a queued waiter of the lock's channel; {@code null} when time ran out. */
	private @Nullable LockHold await(Acquisition acquisition) {
		LockKind kind = acquisition.kind();
		String key = acquisition.key();
		Waiter waiter = Waiter.ofThisThread(acquisition);
		LocalLock lock;
		try {
			lock = this.subscriptions.join(this.locks.channel(kind, key), waiter);
		}
		catch (RedisCommandInterruptedException ex) {
			throw new LockInterruptedException(key,
					new InterruptedException("Interrupted while subscribing to the lock's releases"));
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(key, "wait for", ex);
		}
		boolean woken = false;
		LockHold hold = null;
		try {
			while (true) {
				// Before a passed hold is taken: the leaving waiter releases it, so that
				// a shutdown gives every waiter the same answer.
				this.shutdown.check(key);
				hold = waiter.takeHandOver();
				if (hold != null) {
					return hold;
				}
				long sleepNanos = lock.sleepBeforeAsking(waiter, woken, kind, key, Thread.currentThread());
				if (sleepNanos == 0) {
					Outcome outcome = this.attempts.tryOnce(acquisition);
					hold = outcome.hold();
					if (hold != null) {
						return hold;
					}
					sleepNanos = outcome.holderLeftNanos();
				}
				long remaining = acquisition.deadlineNanos() - System.nanoTime();
				if (remaining <= 0) {
					return null;
				}
				woken = waiter.await(Math.min(remaining, sleepNanos(kind, sleepNanos)));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(key, ex);
		}
		finally {
			LockHold late = lock.remove(waiter, hold != null);
			if (late != null) {
				// Passed to this waiter as it gave up: pass it on rather than drop it.
				this.releaser.releaseQuietly(late);
			}
			if (hold == null && kind.queues()) {
				this.attempts.leaveLine(acquisition, Runnable::run).toCompletableFuture().join();
			}
		}
	}

	/**
	 * Acquire a lock without blocking, as a {@link PendingAcquisition}.
	 * @return the handle ({@code handles} makes it), or {@code null} when the wait ran
	 * out; cancelling it withdraws the acquisition
	 * @see io.github.redislock.LockEngine#acquireAsync
	 */
	CompletableFuture<@Nullable LockHandle> acquireAsync(String key, @Nullable String name, LockKind kind,
			Duration waitTime, @Nullable Duration leaseTime, Function<LockHold, LockHandle> handles) {
		try {
			this.shutdown.check(key);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Acquisition acquisition = Acquisition.of(kind, key, this.tokens.next(), leaseTime, this.options, waitTime,
				false, "");
		PendingAcquisition pending = new PendingAcquisition(this, acquisition, !waitTime.isZero(), name, handles);
		this.scripts.ready(this.threads).whenComplete((ignored, ex) -> {
			if (ex != null) {
				pending.result()
					.completeExceptionally(new LockAccessException(key, "acquire", ScriptCommands.unwrap(ex)));
			}
			else {
				pending.start();
			}
		});
		return pending.result();
	}

	/**
	 * Release one handle of a hold without blocking; the caller is told by the engine's
	 * own deadline, as by {@link LockReleaser#release}.
	 */
	CompletionStage<Void> releaseAsync(LockHold hold) {
		CompletableFuture<Void> released = this.releaser.releaseAsync(hold).toCompletableFuture();
		if (released.isDone()) {
			// Completed on the calling thread: not the last handle, or a lock found lost.
			return released;
		}
		// Completed on the Redis client's thread, which must not run the caller's work.
		CompletableFuture<Void> result = new CompletableFuture<>();
		@Nullable ScheduledFuture<?> deadline = this.threads.later(
				() -> result.completeExceptionally(this.releaser.unanswered(hold)),
				this.releaser.answerDeadlineNanos());
		released.whenComplete((ignored, ex) -> this.threads.complete(() -> {
			if (deadline != null) {
				deadline.cancel(false);
			}
			if (ex != null) {
				result.completeExceptionally(ScriptCommands.unwrap(ex));
			}
			else {
				result.complete(null);
			}
		}));
		return result;
	}

	/**
	 * How long a waiter sleeps, for both drivers: at least a millisecond and, for a kind
	 * that queues, no longer than its place in line lasts unrenewed.
	 */
	static long sleepNanos(LockKind kind, long sleepNanos) {
		long nanos = kind.queues() ? Math.min(sleepNanos, LINE_RENEW_NANOS) : sleepNanos;
		return Math.max(nanos, 1_000_000);
	}

}
