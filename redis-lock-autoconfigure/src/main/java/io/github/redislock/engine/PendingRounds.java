package io.github.redislock.engine;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the rounds and the timers of {@link PendingAcquisition}s, and completes the
 * futures of non-blocking acquisitions and releases, on daemon threads of their own named
 * {@code redis-lock-pending-N} (and {@code redis-lock-pending-timer} for the timers),
 * started when first needed and ended after {@value #IDLE_SECONDS} seconds without work.
 *
 * <p>
 * A round never waits for Redis: it sends at most one command without waiting, so a few
 * threads serve any number of pending acquisitions. Whatever a caller chained to a future
 * runs here too: the futures are never completed on the Redis client's threads, which
 * must stay free to deliver answers (a caller's blocking Redis call there would wait for
 * itself), nor on the housekeeping threads, whose background releases may wait for Redis.
 * Callers that do long work after a grant move it to threads of their own.
 *
 * <p>
 * Rounds and completions go to a {@link ForkJoinPool} in FIFO mode, whose submissions
 * take no lock and wake an idle thread directly. A timer only calls for a round, from the
 * one timer thread; a cancelled timer leaves the queue at once: every round of a waiter
 * that was woken cancels the timer of its last sleep, often minutes before its time, and
 * kept until then they would hold millions of finished acquisitions under a steady rate
 * of reactive calls. Taking one out holds the queue's lock for as long as arming one
 * does.
 *
 * <p>
 * Once closed (the engine shut down, which ended every pending acquisition first), rounds
 * and completions already handed over still run, timers are dropped, and a task handed
 * over later runs on the calling thread, so that no future is left pending for ever.
 *
 * @author redis-lock
 */
final class PendingRounds implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PendingRounds.class);

	private static final int THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

	private static final int IDLE_SECONDS = 10;

	private final ForkJoinPool rounds;

	private final ScheduledThreadPoolExecutor timers;

	PendingRounds() {
		this.rounds = new ForkJoinPool(THREADS, RoundThread::new, null, true, 0, THREADS, 1, null, IDLE_SECONDS,
				TimeUnit.SECONDS);
		this.timers = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "redis-lock-pending-timer");
			thread.setDaemon(true);
			return thread;
		});
		this.timers.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
		this.timers.allowCoreThreadTimeOut(true);
		this.timers.setRemoveOnCancelPolicy(true);
		this.timers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	/** Run a round soon, never on the calling thread while open. */
	void execute(Runnable task) {
		try {
			this.rounds.execute(() -> guarded(task));
		}
		catch (RejectedExecutionException ex) {
			guarded(task);
		}
	}

	/**
	 * Run a task that completes a caller's future: at once on one of these threads, else
	 * on one of them soon.
	 */
	void complete(Runnable task) {
		if (Thread.currentThread() instanceof RoundThread) {
			guarded(task);
		}
		else {
			execute(task);
		}
	}

	/**
	 * Call for a round after the given delay.
	 * @return the timer to cancel, or {@code null} when closed, after the task ran at
	 * once
	 */
	@Nullable ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		try {
			return this.timers.schedule(() -> execute(task), delay, unit);
		}
		catch (RejectedExecutionException ex) {
			guarded(task);
			return null;
		}
	}

	/**
	 * Run a task on one of these threads after the given delay, unless cancelled first:
	 * for a deadline, which is dropped once closed rather than run at once.
	 * @return the timer to cancel, or {@code null} when closed
	 */
	@Nullable ScheduledFuture<?> deadline(Runnable task, long delay, TimeUnit unit) {
		try {
			return this.timers.schedule(() -> execute(task), delay, unit);
		}
		catch (RejectedExecutionException ex) {
			return null;
		}
	}

	/** Number of timers queued now, cancelled ones included: for tests. */
	int queuedTimers() {
		return this.timers.getQueue().size();
	}

	private static void guarded(Runnable task) {
		try {
			task.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A round of a pending lock acquisition failed", ex);
		}
	}

	@Override
	public void close() {
		this.timers.shutdown();
		this.rounds.shutdown();
	}

	/** A thread of these, which {@link #complete} tells from others. */
	private static final class RoundThread extends ForkJoinWorkerThread {

		RoundThread(ForkJoinPool pool) {
			super(pool);
			setName("redis-lock-pending-" + getPoolIndex());
			setDaemon(true);
		}

	}

}
