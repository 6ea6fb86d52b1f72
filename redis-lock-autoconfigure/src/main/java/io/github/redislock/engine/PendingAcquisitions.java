package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;

/**
 * The engine's non-blocking acquire and release paths, for callers such as reactive ones
 * that must not block a thread: each acquisition is a {@link PendingAcquisition}, and a
 * release sends its script without waiting ({@link LockReleaser#releaseAsync}). All else
 * is shared with the blocking paths. What may wait for Redis (opening a connection,
 * reading a cluster's version), the rounds and timers of waiting acquisitions and the
 * completion of their futures run on the {@link EngineThreads}. A record of the parts
 * each {@link PendingAcquisition} uses.
 *
 * @author redis-lock
 */
record PendingAcquisitions(LockOptions options, Acquisition.OwnerTokens tokens, LockScripts scripts, LocalLocks locks,
		ReleaseSubscriptions subscriptions, AcquireAttempts attempts, LockReleaser releaser, EngineShutdown shutdown,
		EngineThreads threads, @Nullable LockObserver observer) {

	/**
	 * Acquire a lock without blocking the calling thread.
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param handles makes the handle of a hold
	 * @return the handle, or {@code null} when the lock stayed held by another owner for
	 * the whole wait; cancelling it withdraws the acquisition
	 * @see io.github.redislock.LockEngine#acquireAsync
	 */
	CompletableFuture<@Nullable LockHandle> acquire(String key, @Nullable String name, LockKind kind, Duration waitTime,
			@Nullable Duration leaseTime, Function<LockHold, LockHandle> handles) {
		try {
			this.shutdown.check(key);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();
		Acquisition acquisition = Acquisition.of(kind, key, this.tokens.next(), leaseTime, this.options, waitTime,
				false, "");
		PendingAcquisition pending = new PendingAcquisition(this, acquisition, !waitTime.isZero(), name, handles,
				result);
		this.scripts.ready(this.threads).whenComplete((ignored, ex) -> {
			if (ex != null) {
				result.completeExceptionally(new LockAccessException(key, "acquire", ScriptCommands.unwrap(ex)));
			}
			else {
				pending.start();
			}
		});
		return result;
	}

	/**
	 * Release one handle of a hold without blocking; the caller is told by the engine's
	 * own deadline, as by {@link LockReleaser#release}.
	 */
	CompletionStage<Void> release(LockHold hold) {
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
	 * Complete the caller's future on the {@link EngineThreads}, never on the Redis
	 * client's, where the caller's chained work would hold up every answer. A hold nobody
	 * will take (the caller cancelled) is released.
	 */
	void complete(CompletableFuture<@Nullable LockHandle> result, Function<LockHold, LockHandle> handles,
			@Nullable LockHold hold, @Nullable Throwable failure) {
		if (result.isCancelled()) {
			if (hold != null) {
				this.releaser.releaseQuietly(hold);
			}
			return;
		}
		this.threads.complete(() -> {
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else if (hold == null) {
				result.complete(null);
			}
			else if (!result.complete(handles.apply(hold))) {
				// Cancelled as it was granted: nobody will release it.
				this.releaser.releaseQuietly(hold);
			}
		});
	}

}
