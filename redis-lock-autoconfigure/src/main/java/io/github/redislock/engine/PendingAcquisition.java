package io.github.redislock.engine;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.LockObserver.AcquireOutcome;
import io.github.redislock.LockShutdownException;

/**
 * One acquisition that no thread waits for: its first attempt and its wait, as a future
 * that the release message, a local holder's release or a timer completes.
 *
 * <h2>Design notes</h2>
 *
 * <b>Rounds, not a loop.</b> It follows {@link LockWaiting} step for step, but where a
 * thread loops and parks, this runs <em>rounds</em>: each waits for its turn in this JVM,
 * a local holder or a yield without a command, else sends one attempt without waiting,
 * and ends by arming a timer for when the thread would wake (the holder's lease end, the
 * deadline, the renewal of a place in line). Nothing sleeps and nothing polls: between
 * rounds the acquisition is a queued {@link Waiter} and, at most, a timer.
 *
 * <p>
 * <b>Who runs a round.</b> A signal (a release message, a local release, a
 * re-subscription, the shutdown) or the timer calls {@link #wakeUp()}, which only counts
 * and, when no round runs, schedules one on the engine's {@link PendingRounds} threads:
 * signals come under the channel's monitor, and the round may complete the caller's
 * future, whose callbacks must run under no lock of the engine's and must not nest one
 * round in another. The count makes rounds of one acquisition run one at a time, and a
 * signal that comes during a round (while its attempt is in flight, say) calls for one
 * more, as a signal before {@code park} makes a thread's next {@code await} return at
 * once.
 *
 * <p>
 * <b>Ending.</b> It ends once, with a hold, without one (the wait ran out) or with a
 * failure, or because the caller cancelled the future: whichever comes first wins the
 * {@link #ended} flag, leaves the channel and, having got nothing, the line in Redis. A
 * grant that comes after the end (an attempt in flight when the caller cancelled, a
 * cancel that raced with the completion) is released, never dropped.
 *
 * <p>
 * The lock belongs to the acquisition, not to a thread: its hold has no owner thread, so
 * no thread re-enters it, and while it is held the engine's threads and other pending
 * acquisitions wait for it as for any holder of this JVM.
 *
 * @author redis-lock
 */
final class PendingAcquisition {

	private static final Log logger = LogFactory.getLog(PendingAcquisition.class);

	private final PendingAcquisitions engine;

	private final Acquisition acquisition;

	private final String channel;

	private final boolean waits;

	private final CompletableFuture<@Nullable LockHandle> result;

	private final Function<LockHold, LockHandle> handles;

	private final @Nullable String name;

	private final AtomicBoolean ended = new AtomicBoolean();

	/** Wake-ups not yet answered by a round; a round runs while it is above 0. */
	private final AtomicInteger wakeUps = new AtomicInteger();

	/** The queued waiter, taken by whoever leaves the channel. */
	private final AtomicReference<@Nullable Waiter> waiter = new AtomicReference<>();

	/** The lock the waiter queued in, once it did. */
	private volatile @Nullable LocalLock lock;

	private volatile boolean joined;

	private volatile @Nullable ScheduledFuture<?> timer;

	private final long startedAt = System.nanoTime();

	private @Nullable Object observerContext;

	PendingAcquisition(PendingAcquisitions engine, Acquisition acquisition, boolean waits, @Nullable String name,
			Function<LockHold, LockHandle> handles, CompletableFuture<@Nullable LockHandle> result) {
		this.engine = engine;
		this.acquisition = acquisition;
		this.channel = engine.locks().channel(acquisition.kind(), acquisition.key());
		this.waits = waits;
		this.name = name;
		this.handles = handles;
		this.result = result;
	}

	/**
	 * Make the first attempt, as {@link LockAcquirer} does, and go on waiting if the wait
	 * time allows; the caller's cancelling the future withdraws the acquisition.
	 */
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
		if (this.waits && waitsHere()) {
			afterFirstAttempt(null);
			return;
		}
		// Answered on the Redis client's thread, whose work must stay short: the rest
		// runs on a round thread.
		this.engine.attempts()
			.tryOnceAsync(this.acquisition.withoutQueueing(), this.engine.background())
			.whenCompleteAsync((outcome, ex) -> {
				if (ex != null) {
					end(null, ScriptCommands.unwrap(ex));
				}
				else if (outcome.hold() != null) {
					end(outcome.hold(), null);
				}
				else {
					afterFirstAttempt(null);
				}
			}, this.engine.rounds()::execute);
	}

	/**
	 * Whether the first attempt is skipped, as {@link LockAcquirer} skips it
	 * ({@link LocalLock#skipsFirstAttempt}).
	 */
	private boolean waitsHere() {
		LocalLock local = this.engine.locks().find(this.channel);
		return local != null && local.skipsFirstAttempt(this.acquisition.kind(), this.acquisition.key(), null);
	}

	private void afterFirstAttempt(@Nullable LockHold hold) {
		if (hold != null || !this.waits || this.ended.get()) {
			end(hold, null);
			return;
		}
		LockKind kind = this.acquisition.kind();
		Waiter queued = Waiter.pending(this::wakeUp, this.acquisition.owner(), !kind.queues(),
				kind.passes() && this.acquisition.renewed());
		this.engine.subscriptions()
			.joinAsync(this.channel, queued, this.engine.background())
			.whenComplete((joined, ex) -> {
				if (ex != null) {
					end(null, new LockAccessException(this.acquisition.key(), "wait for", ScriptCommands.unwrap(ex)));
					return;
				}
				this.lock = joined;
				this.waiter.set(queued);
				this.joined = true;
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
			this.engine.rounds().execute(this::round);
		}
	}

	private void round() {
		int seen = this.wakeUps.get();
		Waiter queued = this.waiter.get();
		if (this.ended.get() || queued == null) {
			roundEnded(seen);
			return;
		}
		queued.asleep(false);
		boolean woken = queued.isSignalled();
		queued.consumeSignal();
		cancelTimer();
		String key = this.acquisition.key();
		try {
			// Before an attempt, as a thread's wait does.
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
		if (sleepNanos > 0) {
			sleep(sleepNanos);
		}
		else {
			this.engine.attempts()
				.tryOnceAsync(this.acquisition, this.engine.background())
				.whenCompleteAsync((outcome, ex) -> {
					if (ex != null) {
						end(null, ScriptCommands.unwrap(ex));
					}
					else if (outcome.hold() != null) {
						end(outcome.hold(), null);
					}
					else {
						sleep(outcome.holderLeftNanos());
					}
					roundEnded(seen);
				}, this.engine.rounds()::execute);
			return;
		}
		roundEnded(seen);
	}

	private void roundEnded(int seen) {
		if (this.wakeUps.addAndGet(-seen) != 0) {
			this.engine.rounds().execute(this::round);
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
		this.timer = this.engine.rounds()
			.schedule(this::wakeUp, Math.min(remaining, LockWaiting.sleepNanos(this.acquisition.kind(), sleepNanos)),
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
	 * End the acquisition, once: with a hold, without one (the wait ran out), or with a
	 * failure. A hold that comes after the end is released.
	 */
	private void end(@Nullable LockHold hold, @Nullable Throwable failure) {
		if (!this.ended.compareAndSet(false, true)) {
			if (hold != null) {
				release(hold);
			}
			return;
		}
		cancelTimer();
		leaveChannel(hold != null);
		if (hold == null && this.joined && this.acquisition.kind().queues()) {
			leaveLine();
		}
		complete(hold, failure);
	}

	/**
	 * Take the waiter out of its channel, if it was queued and nobody did yet.
	 * @param granted whether the acquisition ends holding the lock
	 */
	private void leaveChannel(boolean granted) {
		Waiter queued = this.waiter.getAndSet(null);
		if (queued == null) {
			return;
		}
		queued.asleep(false);
		LocalLock local = this.lock;
		if (local != null) {
			local.remove(queued, granted);
		}
		LockHold late = queued.takeHandOver();
		if (late != null) {
			// Passed to this acquisition as it ended: pass it on rather than drop it.
			release(late);
		}
	}

	/**
	 * Leave the line in Redis at once rather than let those behind wait for the entry.
	 */
	private void leaveLine() {
		LockScripts scripts = this.engine.scripts();
		String key = this.acquisition.key();
		try {
			ScriptCall<Long> call = this.acquisition.kind().leaveCall(scripts, key, this.acquisition.owner());
			if (call != null) {
				scripts.executeAsync(call, this.engine.background()).whenComplete((ignored, ex) -> {
					if (ex != null) {
						leaveFailed(key, ex);
					}
				});
			}
		}
		catch (RuntimeException ex) {
			leaveFailed(key, ex);
		}
	}

	private static void leaveFailed(String key, Throwable ex) {
		logger.debug(LogMessage.format("Could not leave the line of lock '%s'; the entry ends with its wait time", key),
				ex);
	}

	/**
	 * Report the end to the observer and complete the caller's future, on a
	 * {@link PendingRounds} thread: never on the Redis client's, where the caller's
	 * chained work would hold up every answer.
	 */
	private void complete(@Nullable LockHold hold, @Nullable Throwable failure) {
		LockObserver observer = this.engine.observer();
		if (observer != null) {
			observe(observer, hold, failure);
		}
		if (this.result.isCancelled()) {
			if (hold != null) {
				release(hold);
			}
			return;
		}
		this.engine.rounds().complete(() -> {
			if (failure != null) {
				this.result.completeExceptionally(failure);
			}
			else if (hold == null) {
				this.result.complete(null);
			}
			else if (!this.result.complete(this.handles.apply(hold))) {
				// Cancelled as it was granted: nobody will release it.
				release(hold);
			}
		});
	}

	private void observe(LockObserver observer, @Nullable LockHold hold, @Nullable Throwable failure) {
		String key = this.acquisition.key();
		long waitNanos = System.nanoTime() - this.startedAt;
		if (failure != null) {
			// A cancelled acquisition gave up as an interrupted thread does.
			AcquireOutcome outcome = (failure instanceof CancellationException) ? AcquireOutcome.INTERRUPTED
					: AcquireOutcome.FAILED;
			observer.acquireEnded(key, this.observerContext, outcome, waitNanos, failure);
		}
		else if (hold == null) {
			observer.acquireEnded(key, this.observerContext, AcquireOutcome.TIMED_OUT, waitNanos, null);
		}
		else {
			observer.acquireEnded(key, this.observerContext, AcquireOutcome.ACQUIRED, waitNanos, null);
			hold.observed(observer.held(key, this.name, hold.fencingToken(), this.observerContext));
		}
	}

	/** Release a hold nobody will use, without waiting; a failure is left to the log. */
	private void release(LockHold hold) {
		this.engine.releaseQuietly(hold);
	}

}
