package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandInterruptedException;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.engine.AcquireAttempts.Outcome;

/**
 * A thread's wait for a lock: as a queued waiter of the lock's release channel, until
 * Redis grants it, a holder of this JVM passes it on ({@link HandOver}), or the wait time
 * runs out.
 *
 * <p>
 * The waiter joins its channel, subscribed, before it tries again, so that no release
 * between its last refusal and its sleep goes unheard. Each round, for a kind whose
 * waiters take no place in line in Redis, it waits for its turn among this JVM's waiters
 * and, while another thread of this JVM holds the lock, for that thread's release,
 * without a round trip; while this JVM yields the lock to other JVMs it sleeps too; else
 * it tries Redis: the next step is the lock's to decide
 * ({@link LocalLock#sleepBeforeAsking}), for this driver and {@link PendingAcquisition}
 * alike. It sleeps until woken, until the holder's lease would end, or, for a kind that
 * queues, until its place in line needs renewing. Leaving having got nothing, it leaves
 * its line at once rather than let those behind it wait for its entry's deadline.
 *
 * @author redis-lock
 */
final class LockWaiting {

	/**
	 * How often a waiter in line renews its place, by trying again, while nothing wakes
	 * it sooner.
	 */
	private static final long LINE_RENEW_NANOS = TimeUnit.MILLISECONDS.toNanos(Acquisition.LINE_LEASE_MILLIS / 3);

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final ReleaseSubscriptions subscriptions;

	private final AcquireAttempts attempts;

	private final LockReleaser releaser;

	private final EngineShutdown shutdown;

	LockWaiting(LockScripts scripts, LocalLocks locks, ReleaseSubscriptions subscriptions, AcquireAttempts attempts,
			LockReleaser releaser, EngineShutdown shutdown) {
		this.releaser = releaser;
		this.shutdown = shutdown;
		this.scripts = scripts;
		this.locks = locks;
		this.subscriptions = subscriptions;
		this.attempts = attempts;
	}

	/**
	 * Wait for the lock.
	 * @return the hold, or {@code null} when the wait time ran out
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted
	 * @throws io.github.redislock.LockShutdownException when the engine shuts down
	 */
	@Nullable LockHold await(Acquisition acquisition) {
		LockKind kind = acquisition.kind();
		String key = acquisition.key();
		Waiter waiter = new Waiter(Thread.currentThread(), acquisition.owner(), !kind.queues(),
				kind.passes() && acquisition.renewed(), acquisition.reentrant());
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
				// a shutdown wakes every waiter with the same answer.
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
	 * How long a waiter sleeps, at least a millisecond, and for a kind that queues no
	 * longer than its place in line lasts unrenewed; shared with
	 * {@link PendingAcquisition}.
	 */
	static long sleepNanos(LockKind kind, long sleepNanos) {
		long nanos = kind.queues() ? Math.min(sleepNanos, LINE_RENEW_NANOS) : sleepNanos;
		return Math.max(nanos, 1_000_000);
	}

}
