package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisCommandTimeoutException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockObserver.ReleaseOutcome;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * The release path: the last handle of a hold releases the lock, to the first waiter of
 * this JVM when it takes a passed grant ({@link HandOver}), or else in Redis. The hold
 * leaves {@link LocalLocks} and the watchdog before the script runs (see
 * {@link LockWatchdog}'s design note). A release that failed goes on in the background
 * ({@link BackgroundReleases}).
 *
 * @author redis-lock
 */
final class LockReleaser {

	private static final Log logger = LogFactory.getLog(LockReleaser.class);

	/** How long at most this JVM leaves alone a lock it released while others waited. */
	private static final long YIELD_NANOS = 50_000_000;

	private final LockScripts scripts;

	private final LocalLocks locks;

	private final LockWatchdog watchdog;

	private final BackgroundReleases backgroundReleases;

	private final HandOver handOver;

	private final EngineThreads threads;

	private final @Nullable LockObserver observer;

	private final AtomicInteger releasing = new AtomicInteger();

	LockReleaser(LockScripts scripts, LocalLocks locks, LockWatchdog watchdog, BackgroundReleases backgroundReleases,
			HandOver handOver, EngineThreads threads, @Nullable LockObserver observer) {
		this.scripts = scripts;
		this.locks = locks;
		this.watchdog = watchdog;
		this.backgroundReleases = backgroundReleases;
		this.handOver = handOver;
		this.threads = threads;
		this.observer = observer;
	}

	/** Await {@link #releaseAsync} by the deadline, even if interrupted (status kept). */
	void release(LockHold hold) {
		CompletableFuture<Void> released = releaseAsync(hold).toCompletableFuture();
		long deadline = System.nanoTime() + this.watchdog.answerDeadlineNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					released.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (TimeoutException ex) {
					throw unanswered(hold);
				}
				catch (ExecutionException ex) {
					Throwable cause = ScriptCommands.unwrap(ex.getCause());
					if (cause instanceof RuntimeException runtime) {
						throw runtime;
					}
					throw new LockAccessException(hold.key(), "release", cause);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	long answerDeadlineNanos() {
		return this.watchdog.answerDeadlineNanos();
	}

	/**
	 * A release unanswered by the deadline is not sent again: its answer, whenever it
	 * comes, wakes the waiters and is reported as usual.
	 */
	LockAccessException unanswered(LockHold hold) {
		return new LockAccessException(hold.key(), "release",
				new RedisCommandTimeoutException("Redis did not answer the release within "
						+ TimeUnit.NANOSECONDS.toMillis(this.watchdog.answerDeadlineNanos())
						+ " ms; it may still run, and the lock expires with its lease at the latest"));
	}

	/** Releases under way: a shutdown waits for them before it closes the connection. */
	int releasesInFlight() {
		return this.releasing.get();
	}

	/**
	 * Release one handle, and the lock with the last, without blocking; fails with
	 * {@link LockLostException}, or {@link LockAccessException} when Redis failed.
	 */
	CompletionStage<Void> releaseAsync(LockHold hold) {
		// Counted from before the hold reads as released until its release ends, so
		// that a shutdown that waits for holders and releases never sees neither.
		this.releasing.incrementAndGet();
		CompletionStage<Void> released;
		try {
			released = releaseLast(hold);
		}
		catch (RuntimeException ex) {
			released = CompletableFuture.failedFuture(ex);
		}
		return released.whenComplete((ignored, ex) -> this.releasing.decrementAndGet());
	}

	private CompletionStage<Void> releaseLast(LockHold hold) {
		if (!hold.exit()) {
			if (hold.isLost()) {
				throw hold.lostException();
			}
			return CompletableFuture.completedFuture(null);
		}
		LockLease lease = hold.lease();
		if (lease.isRevoked()) {
			throw reportLost(hold, EngineShutdown.lostException(hold));
		}
		String channel = this.locks.channel(lease.kind(), hold.key());
		LocalLock lock = this.locks.find(channel);
		if (lease.check() == null || lock == null || !lock.firstTakesHandOver()) {
			// No waiter here takes a passed grant, as HandOver would find too; one that
			// queues just after is woken when this release is answered, or asks Redis
			// as first in line.
			return releaseInRedis(hold, channel);
		}
		long releasedAt = System.nanoTime();
		return this.handOver.pass(hold, channel, releasedAt)
			.thenCompose((passed) -> passed ? confirmPassed(hold, releasedAt) : releaseInRedis(hold, channel));
	}

	/** A holder that passed its lock is told once a later check found the grant held. */
	private CompletionStage<Void> confirmPassed(LockHold hold, long releasedAt) {
		LockLease lease = hold.lease();
		return this.handOver.held(lease, releasedAt).handle((held, ex) -> {
			if (ex != null || !held || lease.isLost()) {
				throw reportLost(hold, hold.lostException());
			}
			observeRelease(hold, ReleaseOutcome.RELEASED, null);
			return null;
		});
	}

	private CompletionStage<Void> releaseInRedis(LockHold hold, String channel) {
		LockLease lease = hold.lease();
		this.locks.released(hold);
		this.watchdog.unwatch(lease);
		ScriptCall<Long> call = lease.kind()
			.releaseCall(this.scripts, hold.key(), lease.owner(), lease.fencingToken(), hold.fencingToken());
		CompletableFuture<Void> done = new CompletableFuture<>();
		SlotMigration.retryAsync(() -> this.scripts.executeAsync(call, this.threads), this.threads::later)
			.whenComplete((reply, ex) -> {
				try {
					if (ex != null) {
						throw releaseFailed(hold, lease, ex);
					}
					released(hold, lease, channel, LockKind.releaseOutcome(reply));
					done.complete(null);
				}
				catch (RuntimeException failure) {
					done.completeExceptionally(failure);
				}
			});
		return done;
	}

	/** A release that failed may not have run: it goes on in the background. */
	private LockAccessException releaseFailed(LockHold hold, LockLease lease, Throwable ex) {
		this.backgroundReleases.giveBack(lease.kind(), hold.key(), lease.owner(), hold.fencingToken(),
				Math.max(0, TimeUnit.NANOSECONDS.toMillis(lease.expiresAtNanos() - System.nanoTime())));
		LockAccessException failure = new LockAccessException(hold.key(), "release", ex);
		observeRelease(hold, ReleaseOutcome.FAILED, failure);
		return failure;
	}

	/** Wake a waiter here; throw {@link LockLostException} for a lock found gone. */
	private void released(LockHold hold, LockLease lease, String channel, long outcome) {
		// This JVM's own release message wakes no waiter here of a kind that yields, nor
		// one of another kind sharing the key (a fair lock's release, an exclusive
		// waiter): one local waiter asks at once, or when the yield to other JVMs ends.
		if (lease.kind().yields() && outcome > 0) {
			this.locks.yieldFor(channel, YIELD_NANOS);
		}
		this.locks.wakeOne(channel);
		if (outcome < 0 || lease.isLost()) {
			boolean found = lease.markLost();
			LockLostException lost = hold.lostException();
			if (found && this.observer != null) {
				this.observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
			throw reportLost(hold, lost);
		}
		observeRelease(hold, ReleaseOutcome.RELEASED, null);
	}

	/** Release, without waiting, a hold granted to an acquisition that ended. */
	void releaseQuietly(LockHold hold) {
		releaseAsync(hold).exceptionally((ex) -> {
			logger.debug(LogMessage.format("Lock '%s', granted to an acquisition that ended, was lost meanwhile "
					+ "or is released in the background", hold.key()), ScriptCommands.unwrap(ex));
			return null;
		});
	}

	private LockLostException reportLost(LockHold hold, LockLostException lost) {
		observeRelease(hold, ReleaseOutcome.LOST, lost);
		return lost;
	}

	private void observeRelease(LockHold hold, ReleaseOutcome outcome, @Nullable Throwable failure) {
		if (this.observer != null) {
			this.observer.released(hold.key(), hold.observerContext(), outcome, failure);
		}
	}

}
