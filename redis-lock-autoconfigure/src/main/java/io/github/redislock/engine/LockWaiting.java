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
 * Redis grants it, a local holder hands it over or leaves it vacant, or the wait time
 * runs out.
 *
 * <p>
 * The waiter joins its channel, subscribed, before it tries again, so that no release
 * between its last refusal and its sleep goes unheard. Each round it takes a hand-over if
 * one came, or the lock's vacant hold if no other thread took it first; else, while
 * another thread of this JVM holds a lock whose kind hands over, or while this JVM yields
 * the lock to other JVMs, it sleeps without a round trip; else it tries Redis. It sleeps
 * until woken, until the holder's lease would end, or, for a kind that queues, until its
 * place in line needs renewing. Leaving, it passes on a hold handed to it too late and,
 * having got nothing, leaves its line at once rather than let those behind it wait for
 * its entry's deadline.
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

	private final LocalHandOver handOver;

	private final AcquireAttempts attempts;

	private final EagerAcquisitions eager;

	private final LockReleaser releaser;

	private final EngineShutdown shutdown;

	LockWaiting(LockScripts scripts, LocalHolds holds, ReleaseSubscriptions subscriptions, LocalHandOver handOver,
			AcquireAttempts attempts, EagerAcquisitions eager, LockReleaser releaser, EngineShutdown shutdown) {
		this.shutdown = shutdown;
		this.handOver = handOver;
		this.scripts = scripts;
		this.holds = holds;
		this.subscriptions = subscriptions;
		this.attempts = attempts;
		this.eager = eager;
		this.releaser = releaser;
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
		Waiter waiter;
		try {
			waiter = this.subscriptions.join(channel, kind.handsOver() && acquisition.renewed(),
					acquisition.reentrant(), acquisition.owner(), this.eager.forWaiter(acquisition));
		}
		catch (RedisCommandInterruptedException ex) {
			throw new LockInterruptedException(acquisition.key(),
					new InterruptedException("Interrupted while subscribing to the lock's releases"));
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(acquisition.key(), "wait for", ex);
		}
		boolean barges = kind.barges() && acquisition.renewed();
		boolean woken = false;
		LockHold hold = null;
		try {
			while (true) {
				// Before a hand-over is taken: the leaving waiter passes it on, so that a
				// shutdown wakes every waiter with the same answer.
				this.shutdown.check(acquisition.key());
				hold = waiter.takeHandoff();
				if (hold == null && barges) {
					hold = this.handOver.takeVacant(channel, waiter.reentrantThread());
				}
				if (hold != null) {
					return hold;
				}
				long sleepNanos;
				LockHold local = kind.handsOver() ? this.holds.ofThread(kind, acquisition.key()) : null;
				long yielding = kind.yields() ? this.subscriptions.yieldingNanos(channel) : 0;
				boolean nap = false;
				if (LocalHolds.isHeldByAnotherThread(local)) {
					// Its release wakes a queued waiter: by hand-over, or by the release
					// message.
					sleepNanos = local.lease().expiresAtNanos() - System.nanoTime();
					long untilStarving = waiter.nanosUntilStarving(this.subscriptions.bargingNanos(channel));
					if (barges && woken && untilStarving > 0) {
						// Woken for a lock another thread barged into: it will likely do
						// so
						// again, so sleep without being woken until handed the lock.
						sleepNanos = Math.min(sleepNanos, untilStarving);
						nap = true;
					}
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
				waiter.napping(nap);
				try {
					waiter.await(Math.min(remaining, nap ? sleepNanos : Math.max(sleepNanos, 1_000_000)));
				}
				finally {
					waiter.napping(false);
				}
				woken = true;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(acquisition.key(), ex);
		}
		finally {
			LockHold untaken = this.subscriptions.leave(channel, waiter, this.releaser::releaseVacant);
			if (untaken != null && untaken != hold) {
				// Handed over as this waiter gave up: pass it on rather than drop it.
				this.releaser.releaseQuietly(untaken);
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
