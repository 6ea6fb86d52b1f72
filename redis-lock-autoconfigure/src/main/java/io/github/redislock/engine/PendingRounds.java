package io.github.redislock.engine;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the rounds and the timers of {@link PendingAcquisition}s, and completes the
 * futures of non-blocking acquisitions and releases, on daemon threads of their own named
 * {@code redis-lock-pending-N}, started when first needed and ended after
 * {@value #IDLE_SECONDS} seconds without work.
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
 * Once closed (the engine shut down, which ended every pending acquisition first), a task
 * handed to it runs on the calling thread, so that a late wake-up still ends its
 * acquisition rather than leave its future pending for ever.
 *
 * @author redis-lock
 */
final class PendingRounds implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(PendingRounds.class);

	private static final int THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

	private static final int IDLE_SECONDS = 10;

	private final ScheduledThreadPoolExecutor executor;

	PendingRounds() {
		AtomicInteger count = new AtomicInteger();
		this.executor = new ScheduledThreadPoolExecutor(THREADS,
				(task) -> new RoundThread(task, "redis-lock-pending-" + count.incrementAndGet()));
		this.executor.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
		this.executor.allowCoreThreadTimeOut(true);
		// A cancelled timer stays queued until its time, and is dropped then: taking it
		// out at once would wait for the queue's lock, and a round must never wait.
		this.executor.setRemoveOnCancelPolicy(false);
		this.executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	/** Run a round soon, never on the calling thread while open. */
	void execute(Runnable task) {
		try {
			this.executor.execute(() -> guarded(task));
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
	 * Run a task after the given delay.
	 * @return the timer to cancel, or {@code null} when closed, after the task ran at
	 * once
	 */
	@Nullable ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		try {
			return this.executor.schedule(() -> guarded(task), delay, unit);
		}
		catch (RejectedExecutionException ex) {
			guarded(task);
			return null;
		}
	}

	private static void guarded(Runnable task) {
		try {
			task.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A round of a pending lock acquisition failed", ex);
		}
	}

	/**
	 * Stop: timers are dropped, but rounds and completions already handed over still run,
	 * so that no future is left pending; later ones run on the calling thread.
	 */
	@Override
	public void close() {
		this.executor.shutdown();
	}

	/** A thread of these, which {@link #complete} tells from others. */
	private static final class RoundThread extends Thread {

		RoundThread(Runnable task, String name) {
			super(task, name);
			setDaemon(true);
		}

	}

}
