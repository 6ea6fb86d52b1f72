package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandInterruptedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

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
 * ({@link ChannelWaiters}) and, while another thread of this JVM holds the lock, for that
 * thread's release, without a round trip; while this JVM yields the lock to other JVMs it
 * sleeps too; else it tries Redis. It sleeps until woken, until the holder's lease would
 * end, or, for a kind that queues, until its place in line needs renewing. Leaving having
 * got nothing, it leaves its line at once rather than let those behind it wait for its
 * entry's deadline.
 *
 * @author redis-lock
 */
final class LockWaiting {

	private static final Log logger = LogFactory.getLog(LockWaiting.class);

	/**
	 * How often a waiter in line renews its place, by trying again, while nothing wakes
	 * it sooner.
	 */
	private static final long LINE_RENEW_NANOS = TimeUnit.MILLISECONDS.toNanos(Acquisition.LINE_LEASE_MILLIS / 3);

	private final LockScripts scripts;

	private final LocalHolds holds;

	private final ReleaseSubscriptions subscriptions;

	private final AcquireAttempts attempts;

	private final LockReleaser releaser;

	private final EngineShutdown shutdown;

	LockWaiting(LockScripts scripts, LocalHolds holds, ReleaseSubscriptions subscriptions, AcquireAttempts attempts,
			LockReleaser releaser, EngineShutdown shutdown) {
		this.releaser = releaser;
		this.shutdown = shutdown;
		this.scripts = scripts;
		this.holds = holds;
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
		String channel = kind.channel(this.scripts.keys(), acquisition.key());
		boolean orderedHere = !kind.queues();
		Waiter waiter;
		try {
			waiter = this.subscriptions.join(channel, acquisition.owner(), orderedHere,
					kind.passes() && acquisition.renewed(), acquisition.reentrant());
		}
		catch (RedisCommandInterruptedException ex) {
			throw new LockInterruptedException(acquisition.key(),
					new InterruptedException("Interrupted while subscribing to the lock's releases"));
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(acquisition.key(), "wait for", ex);
		}
		boolean woken = false;
		LockHold hold = null;
		try {
			while (true) {
				// Before a passed hold is taken: the leaving waiter releases it, so that
				// a
				// shutdown wakes every waiter with the same answer.
				this.shutdown.check(acquisition.key());
				hold = waiter.takeHandOver();
				if (hold != null) {
					return hold;
				}
				long sleepNanos;
				LockHold local = orderedHere ? this.holds.ofThread(kind, acquisition.key()) : null;
				long yielding = kind.yields() ? this.subscriptions.yieldingNanos(channel) : 0;
				if (orderedHere && !woken && !this.subscriptions.isFirst(channel, waiter)) {
					// Not its turn: the waiter ahead of it, once done, wakes it.
					sleepNanos = Long.MAX_VALUE;
				}
				else if (!woken && LocalHolds.isHeldByAnotherThread(local)) {
					// Its release wakes a queued waiter. A waiter woken asks Redis: a
					// message from another JVM means Redis no longer counts that holder.
					sleepNanos = local.lease().expiresAtNanos() - System.nanoTime();
				}
				else if (yielding > 0) {
					sleepNanos = yielding;
				}
				else {
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
				if (kind.queues()) {
					// Wake in time to renew the place in line.
					sleepNanos = Math.min(sleepNanos, LINE_RENEW_NANOS);
				}
				woken = waiter.await(Math.min(remaining, Math.max(sleepNanos, 1_000_000)));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(acquisition.key(), ex);
		}
		finally {
			this.subscriptions.leave(channel, waiter, hold != null);
			LockHold late = waiter.takeHandOver();
			if (late != null) {
				// Passed to this waiter as it gave up: pass it on rather than drop it.
				this.releaser.releaseQuietly(late);
			}
			if (hold == null && kind.queues()) {
				leaveLine(acquisition);
			}
		}
	}

	private void leaveLine(Acquisition acquisition) {
		try {
			acquisition.kind().leave(this.scripts, acquisition.key(), acquisition.owner());
		}
		catch (RuntimeException ex) {
			logger.debug(LogMessage.format("Could not leave the line of lock '%s'; the entry ends with its wait time",
					acquisition.key()), ex);
		}
	}

}
