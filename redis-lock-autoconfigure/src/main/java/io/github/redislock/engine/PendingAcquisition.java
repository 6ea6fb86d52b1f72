package io.github.redislock.engine;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.LockShutdownException;
import io.github.redislock.engine.AcquireAttempts.Outcome;

/**
 * One acquisition that no thread waits for, as a future. Where a thread's wait
 * ({@link LockAcquirer}) loops and parks, this runs <em>rounds</em> taking the same next
 * step ({@link LocalLock#sleepBeforeAsking}), then a timer for when the thread would
 * wake. A signal or the timer calls {@link #wakeUp()}, which schedules a round on the
 * {@link EngineThreads}, never under the lock's monitor that signals come under; rounds
 * run one at a time, and a signal during a round calls for one more.
 *
 * <p>
 * It ends once (with a hold, without one, with a failure, or cancelled): whichever comes
 * first wins {@link #ended}, leaves the channel and, having got nothing, the line in
 * Redis. A grant that comes after the end is released, never dropped.
 *
 * @author redis-lock
 */
final class PendingAcquisition {

	private final LockAcquirer engine;

	private final Acquisition acquisition;

	private final String channel;

	private final boolean waits;

	private final CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();

	private final Function<LockHold, LockHandle> handles;

	private final @Nullable String name;

	private final AtomicBoolean ended = new AtomicBoolean();

	/** Wake-ups not yet answered by a round; a round runs while it is above 0. */
	private final AtomicInteger wakeUps = new AtomicInteger();

	/** The queued waiter, taken by whoever leaves the channel. */
	private final AtomicReference<@Nullable Waiter> waiter = new AtomicReference<>();

	private volatile @Nullable LocalLock lock;

	private volatile @Nullable ScheduledFuture<?> timer;

	private final long startedAt = System.nanoTime();

	private @Nullable Object observerContext;

	PendingAcquisition(LockAcquirer engine, Acquisition acquisition, boolean waits, @Nullable String name,
			Function<LockHold, LockHandle> handles) {
		this.engine = engine;
		this.acquisition = acquisition;
		this.channel = engine.locks().channel(acquisition.kind(), acquisition.key());
		this.waits = waits;
		this.name = name;
		this.handles = handles;
	}

	/** The caller's future; cancelling it withdraws the acquisition. */
	CompletableFuture<@Nullable LockHandle> result() {
		return this.result;
	}

	/** Make the first attempt, as {@link LockAcquirer} does, then wait if it may. */
	void start() {
		LockObserver observer = this.engine.observer();
		if (observer != null) {
			this.observerContext = observer.acquireStarted(this.acquisition.key(), this.name);
		}
		this.result.whenComplete((handle, ex) -> {
			if (this.result.isCancelled()) {
				end(null, new CancellationException("The acquisition was cancelled"));
			}
		});
		LocalLock local = this.engine.locks().find(this.channel);
		if (this.waits && local != null
				&& local.skipsFirstAttempt(this.acquisition.kind(), this.acquisition.key(), null)) {
			afterFirstAttempt();
			return;
		}
		attempt(this.acquisition.withoutQueueing(), (refused) -> afterFirstAttempt(), () -> {
		});
	}

	/**
	 * Send one attempt and end with its grant or failure, or hand a refusal on; then run
	 * {@code after}, on the engine's threads rather than the Redis client's.
	 */
	private void attempt(Acquisition attempt, Consumer<Outcome> onRefusal, Runnable after) {
		CompletionStage<Outcome> sent;
		try {
			sent = this.engine.attempts().tryOnceAsync(attempt, this.engine.threads());
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		sent.whenCompleteAsync((outcome, ex) -> {
			// A round that never ends would leave later wake-ups unanswered.
			try {
				if (ex != null) {
					end(null, ScriptCommands.unwrap(ex));
				}
				else if (outcome.hold() != null) {
					end(outcome.hold(), null);
				}
				else {
					onRefusal.accept(outcome);
				}
			}
			catch (RuntimeException failure) {
				end(null, failure);
			}
			finally {
				after.run();
			}
		}, this.engine.threads());
	}

	private void afterFirstAttempt() {
		if (!this.waits || this.ended.get()) {
			end(null, null);
			return;
		}
		Waiter queued = Waiter.pending(this.acquisition, this::wakeUp);
		this.engine.subscriptions()
			.joinAsync(this.channel, queued, this.engine.threads())
			.whenComplete((joined, ex) -> {
				if (ex != null) {
					end(null, new LockAccessException(this.acquisition.key(), "wait for", ScriptCommands.unwrap(ex)));
					return;
				}
				this.lock = joined;
				this.waiter.set(queued);
				if (this.ended.get()) {
					// Cancelled while joining: end() found no waiter to take out.
					leaveChannel(false);
					return;
				}
				wakeUp();
			});
	}

	/** Call for a round; schedules one unless one runs, which then runs again. */
	private void wakeUp() {
		if (this.wakeUps.getAndIncrement() == 0) {
			this.engine.threads().execute(this::round);
		}
	}

	private void round() {
		int seen = this.wakeUps.get();
		Waiter queued = this.waiter.get();
		if (this.ended.get() || queued == null) {
			roundEnded(seen);
			return;
		}
		boolean woken = queued.startRound();
		cancelTimer();
		String key = this.acquisition.key();
		try {
			this.engine.shutdown().check(key);
		}
		catch (LockShutdownException ex) {
			end(null, ex);
			roundEnded(seen);
			return;
		}
		LockHold handed = queued.takeHandOver();
		if (handed != null) {
			end(handed, null);
			roundEnded(seen);
			return;
		}
		LocalLock local = this.lock;
		long sleepNanos = (local != null) ? local.sleepBeforeAsking(queued, woken, this.acquisition.kind(), key, null)
				: 0;
		if (sleepNanos == 0) {
			attempt(this.acquisition, (refused) -> sleep(refused.holderLeftNanos()), () -> roundEnded(seen));
			return;
		}
		sleep(sleepNanos);
		roundEnded(seen);
	}

	private void roundEnded(int seen) {
		if (this.wakeUps.addAndGet(-seen) != 0) {
			this.engine.threads().execute(this::round);
		}
	}

	/** Sleep until woken, or until the timer a thread would sleep for. */
	private void sleep(long sleepNanos) {
		long remaining = this.acquisition.deadlineNanos() - System.nanoTime();
		if (remaining <= 0) {
			end(null, null);
			return;
		}
		Waiter queued = this.waiter.get();
		if (queued == null || this.ended.get()) {
			return;
		}
		this.timer = this.engine.threads()
			.schedule(this::wakeUp, Math.min(remaining, LockAcquirer.sleepNanos(this.acquisition.kind(), sleepNanos)),
					TimeUnit.NANOSECONDS);
		queued.asleep(true);
	}

	private void cancelTimer() {
		ScheduledFuture<?> armed = this.timer;
		if (armed != null) {
			this.timer = null;
			armed.cancel(false);
		}
	}

	/**
	 * End the acquisition, once, completing the caller's future; a hold that comes after
	 * the end, or that a caller who cancelled will not take, is released.
	 */
	private void end(@Nullable LockHold hold, @Nullable Throwable failure) {
		if (!this.ended.compareAndSet(false, true)) {
			if (hold != null) {
				this.engine.releaser().releaseQuietly(hold);
			}
			return;
		}
		cancelTimer();
		leaveChannel(hold != null);
		if (hold == null && this.lock != null && this.acquisition.kind().queues()) {
			this.engine.attempts().leaveLine(this.acquisition, this.engine.threads());
		}
		LockObserver observer = this.engine.observer();
		if (observer != null) {
			GuardedLockObserver.reportAcquireEnded(observer, this.acquisition.key(), this.name, this.observerContext,
					this.startedAt, hold, failure);
		}
		if (this.result.isCancelled()) {
			if (hold != null) {
				this.engine.releaser().releaseQuietly(hold);
			}
			return;
		}
		// On the engine's threads: the caller's chained work would hold up Lettuce.
		this.engine.threads().complete(() -> {
			if (failure != null) {
				this.result.completeExceptionally(failure);
			}
			else if (hold == null) {
				this.result.complete(null);
			}
			else if (!this.result.complete(this.handles.apply(hold))) {
				// Cancelled as it was granted: nobody will release it.
				this.engine.releaser().releaseQuietly(hold);
			}
		});
	}

	/** Take the waiter out of its channel, if it was queued and nobody did yet. */
	private void leaveChannel(boolean granted) {
		Waiter queued = this.waiter.getAndSet(null);
		if (queued == null) {
			return;
		}
		queued.asleep(false);
		LocalLock local = this.lock;
		LockHold late = (local != null) ? local.remove(queued, granted) : queued.takeHandOver();
		if (late != null) {
			// Passed to this acquisition as it ended: pass it on rather than drop it.
			this.engine.releaser().releaseQuietly(late);
		}
	}

}
