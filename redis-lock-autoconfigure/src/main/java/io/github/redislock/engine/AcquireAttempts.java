package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisCommandInterruptedException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockNotReplicatedException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.engine.Acquisition.Attempt;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * One attempt at a lock in Redis: its kind's acquire script, with {@code minReplicas} a
 * {@code WAIT} for the replicas on the same connection, and a grant recorded as a hold.
 *
 * <p>
 * A script refused during a cluster slot migration did not run: it counts as refused, to
 * be tried again shortly ({@link SlotMigration}). After any other failure, an interrupt,
 * or a grant too few replicas acknowledged (which a failover would lose), what Redis may
 * have granted is given back in the background, owner-checked, so that nothing stays
 * locked for a lease.
 *
 * <p>
 * A grant replaces any hold of its key here ({@link LocalLock}'s design note): that hold
 * had lost its lease in Redis (a data loss, or a lease that ran out before this JVM
 * noticed). Left in place, its thread would re-enter a lock held by another; it is marked
 * lost at once, and reported as the watchdog would.
 *
 * @author redis-lock
 */
final class AcquireAttempts {

	private static final Log logger = LogFactory.getLog(AcquireAttempts.class);

	private final LockOptions options;

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final LockWatchdog watchdog;

	private final @Nullable LockObserver observer;

	private final BackgroundReleases backgroundReleases;

	private final AtomicInteger inFlight = new AtomicInteger();

	AcquireAttempts(LockOptions options, LockScripts scripts, LocalLocks locks, LockWatchdog watchdog,
			@Nullable LockObserver observer, BackgroundReleases backgroundReleases) {
		this.options = options;
		this.scripts = scripts;
		this.locks = locks;
		this.watchdog = watchdog;
		this.observer = observer;
		this.backgroundReleases = backgroundReleases;
	}

	/**
	 * Try once from the calling thread; a grant becomes its hold.
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while Redis ran the script
	 * @throws LockNotReplicatedException when too few replicas acknowledged the grant
	 */
	Outcome tryOnce(Acquisition acquisition) {
		long sentAt = System.nanoTime();
		this.inFlight.incrementAndGet();
		try {
			return outcome(acquisition, attempt(acquisition), Thread.currentThread(), sentAt);
		}
		finally {
			this.inFlight.decrementAndGet();
		}
	}

	/** Attempts not answered yet: a shutdown waits to release what they bring. */
	int inFlight() {
		return this.inFlight.get();
	}

	/**
	 * Try once without blocking, for a pending acquisition; completes on the Redis
	 * client's thread, or exceptionally with what {@link #tryOnce} would throw.
	 * @param opener opens the engine's connection when it is not open
	 */
	CompletionStage<Outcome> tryOnceAsync(Acquisition acquisition, Executor opener) {
		long sentAt = System.nanoTime();
		String key = acquisition.key();
		int replicas = this.options.minReplicas();
		this.inFlight.incrementAndGet();
		CompletionStage<Attempt> sent;
		try {
			sent = this.scripts.executeAsync(acquisition.kind().acquireCall(this.scripts, acquisition), opener)
				.thenApply(Attempt::of);
			if (replicas > 0) {
				sent = sent.thenCompose((attempt) -> !attempt.granted() ? CompletableFuture.completedFuture(attempt)
						: this.scripts.awaitReplicasAsync(key, replicas, this.options.replicationTimeout().toMillis())
							.thenApply(attempt::acknowledgedBy));
			}
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		return sent.handle((attempt, ex) -> {
			try {
				Attempt answered = (ex != null) ? failed(acquisition, ScriptCommands.unwrap(ex))
						: checkReplicas(acquisition, attempt);
				return outcome(acquisition, answered, null, sentAt);
			}
			finally {
				this.inFlight.decrementAndGet();
			}
		});
	}

	private Outcome outcome(Acquisition acquisition, Attempt attempt, @Nullable Thread thread, long sentAt) {
		if (!attempt.granted()) {
			long holderLeft = (attempt.holderLeaseMillis() < 0) ? Long.MAX_VALUE
					: attempt.holderLeaseMillis() * 1_000_000;
			return new Outcome(null, holderLeft);
		}
		return new Outcome(grant(acquisition, attempt, thread, sentAt), 0);
	}

	/**
	 * Record a grant as the hold of the given thread, or of none.
	 * @param sentAt when the acquire script was sent, from which the lease runs
	 */
	private LockHold grant(Acquisition acquisition, Attempt attempt, @Nullable Thread thread, long sentAt) {
		LockLease lease = new LockLease(acquisition.kind(), acquisition.key(), acquisition.owner(),
				attempt.fencingToken(), acquisition.leaseMillis(), acquisition.renewed(), sentAt);
		LockHold hold = new LockHold(lease, attempt.fencingToken(), acquisition.reentrant() ? thread : null);
		lease.heldBy(hold);
		LockHold replaced = this.locks.granted(hold);
		if (replaced != null && replaced.lease() != lease && !replaced.isReleased()) {
			lostToGrant(replaced);
		}
		if (lease.isRenewed()) {
			this.watchdog.watch(lease);
		}
		return hold;
	}

	private void lostToGrant(LockHold hold) {
		LockLease lease = hold.lease();
		this.watchdog.unwatch(lease);
		if (lease.markLost()) {
			if (lease.claimLossReport()) {
				HandOver.warnLost(logger, hold.key(), hold.fencingToken(),
						"Redis granted it to another owner, so its lease had ended there");
			}
			LockObserver observer = this.observer;
			if (observer != null) {
				observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
		}
	}

	private Attempt attempt(Acquisition acquisition) {
		String key = acquisition.key();
		LockKind kind = acquisition.kind();
		Attempt attempt;
		try {
			int replicas = this.options.minReplicas();
			attempt = (replicas > 0)
					? this.scripts.acquireReplicated(key, () -> kind.acquire(this.scripts, acquisition), replicas,
							this.options.replicationTimeout().toMillis())
					: kind.acquire(this.scripts, acquisition);
		}
		catch (RedisCommandInterruptedException ex) {
			giveBack(acquisition);
			throw new LockInterruptedException(key,
					new InterruptedException("Interrupted while Redis ran the acquisition"));
		}
		catch (RuntimeException ex) {
			return failed(acquisition, ex);
		}
		return checkReplicas(acquisition, attempt);
	}

	/**
	 * A refusal if the script did not run for a slot migration; else a failure, after
	 * what Redis may have granted is given back.
	 */
	private Attempt failed(Acquisition acquisition, Throwable ex) {
		if (SlotMigration.isMigrating(ex)) {
			return Attempt.heldFor(SlotMigration.RETRY_MILLIS);
		}
		giveBack(acquisition);
		throw new LockAccessException(acquisition.key(), "acquire", ex);
	}

	/** Give back a grant too few replicas acknowledged, and throw. */
	private Attempt checkReplicas(Acquisition acquisition, Attempt attempt) {
		if (attempt.granted() && attempt.replicas() < this.options.minReplicas()) {
			giveBack(acquisition);
			throw new LockNotReplicatedException(acquisition.key(), attempt.replicas(), this.options.minReplicas(),
					this.options.replicationTimeout());
		}
		return attempt;
	}

	private void giveBack(Acquisition acquisition) {
		this.backgroundReleases.giveBack(acquisition.kind(), acquisition.key(), acquisition.owner(),
				acquisition.leaseMillis());
	}

	/**
	 * A hold when Redis granted the lock, else how long the caller may sleep at most.
	 *
	 * @param hold the hold, or {@code null} when refused
	 * @param holderLeftNanos when refused, the holder's lease left
	 */
	record Outcome(@Nullable LockHold hold, long holderLeftNanos) {
	}

	/**
	 * Take an acquisition that gives up out of its line in Redis, for a kind that queues.
	 * @param opener opens the connection if it is not open, since that waits for Redis
	 * @return completes once answered or failed, a failure logged
	 */
	CompletionStage<Void> leaveLine(Acquisition acquisition, Executor opener) {
		String key = acquisition.key();
		CompletionStage<Long> left;
		try {
			ScriptCall<Long> call = acquisition.kind().leaveCall(this.scripts, key, acquisition.owner());
			left = (call != null) ? this.scripts.executeAsync(call, opener) : CompletableFuture.completedFuture(0L);
		}
		catch (RuntimeException ex) {
			left = CompletableFuture.failedFuture(ex);
		}
		return left.handle((ignored, ex) -> {
			if (ex != null) {
				logger.debug(LogMessage
					.format("Could not leave the line of lock '%s'; the entry ends with its wait time", key), ex);
			}
			return null;
		});
	}

}
