package io.github.redislock.engine;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Where the engine's work runs, but for the watchdog's renewals: one timer thread,
 * {@code redis-lock-timer}, that only hands work on when it is due, and one executor for
 * the work itself: the pending acquisitions' rounds and the completion of their futures,
 * background releases, hand-over checks, the periodic sweep of idle subscriptions,
 * opening connections for callers that must not wait for them.
 *
 * <h2>Design notes</h2>
 *
 * The executor is the application's when it gives one (a Spring application with
 * {@code spring.threads.virtual.enabled=true} gives virtual threads); otherwise a pool of
 * daemon threads of the engine's own, {@code redis-lock-housekeeping-N}, up to eight or
 * twice the processors, started when first needed and ended after {@value #IDLE_SECONDS}
 * seconds without work. Some of this work waits for Redis (a background release waits up
 * to the command timeout), so none of it runs on the Redis client's threads, which must
 * stay free to deliver answers, nor on the watchdog's, where it would hold up renewals;
 * the pool is large enough that a few releases stuck on a stalled cluster shard leave
 * rounds and sweeps going. A round never waits for Redis: whatever a caller chained to
 * its future runs here too, and a caller that does long work after a grant moves it to
 * threads of its own.
 *
 * <p>
 * Both are {@link ScheduledThreadPoolExecutor}s, whose queue guards each hand-over, and
 * each removal of a cancelled timer, with a lock held for one heap operation: a reactive
 * caller that arms a timer or calls for a round never waits for I/O. A cancelled timer
 * leaves the queue at once: every round of a woken waiter cancels the timer of its last
 * sleep, often minutes before its time, and kept until then they would hold millions of
 * finished acquisitions under a steady rate of reactive calls.
 *
 * <p>
 * Once closed (the engine shut down, which ended every pending acquisition first), work
 * already handed over still runs, deadlines and retries are dropped, and a wake-up or
 * work handed over later runs on the calling thread, where it fails at once on the closed
 * connections rather than leave a future pending for ever. Work that the application's
 * executor refuses runs on the engine's own pool.
 *
 * @author redis-lock
 */
final class EngineThreads implements Executor, AutoCloseable {

	private static final Log logger = LogFactory.getLog(EngineThreads.class);

	private static final int THREADS = Math.max(8, 2 * Runtime.getRuntime().availableProcessors());

	private static final int IDLE_SECONDS = 10;

	/** Whether the calling thread runs a task handed over here, for {@link #complete}. */
	private static final ThreadLocal<Boolean> inTask = new ThreadLocal<>();

	private final ScheduledThreadPoolExecutor timer;

	private final ScheduledThreadPoolExecutor own;

	private final Executor executor;

	/**
	 * Create the timer and the executor; no thread starts before the first task.
	 * @param executor the application's executor for the work, or {@code null} for a pool
	 * of the engine's own
	 */
	EngineThreads(@Nullable Executor executor) {
		this.timer = pool(1, (task) -> daemon(task, "redis-lock-timer"));
		AtomicInteger count = new AtomicInteger();
		this.own = pool(THREADS, (task) -> daemon(task, "redis-lock-housekeeping-" + count.incrementAndGet()));
		this.executor = (executor != null) ? executor : this.own;
	}

	private static ScheduledThreadPoolExecutor pool(int threads, ThreadFactory factory) {
		ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(threads, factory);
		pool.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
		pool.allowCoreThreadTimeOut(true);
		pool.setRemoveOnCancelPolicy(true);
		pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return pool;
	}

	private static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	/** Run a task soon, never on the calling thread while open; it may wait for Redis. */
	@Override
	public void execute(Runnable task) {
		Runnable guarded = () -> run(task);
		try {
			this.executor.execute(guarded);
		}
		catch (RejectedExecutionException ex) {
			try {
				this.own.execute(guarded);
			}
			catch (RejectedExecutionException closed) {
				guarded.run();
			}
		}
	}

	/**
	 * Run a task that completes a caller's future: at once when called from a task of
	 * these, else on the executor soon.
	 */
	void complete(Runnable task) {
		if (inTask.get() != null) {
			run(task);
		}
		else {
			execute(task);
		}
	}

	/**
	 * Run a task on the executor after the given delay, unless cancelled first: for a
	 * pending acquisition's wake-up, which runs at once once closed.
	 * @return the timer to cancel, or {@code null} when closed, after the task ran
	 */
	@Nullable ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		try {
			return this.timer.schedule(() -> execute(task), delay, unit);
		}
		catch (RejectedExecutionException ex) {
			run(task);
			return null;
		}
	}

	/**
	 * Run a task on the executor after the given delay, unless cancelled first: for a
	 * deadline or a retry, which is dropped once closed.
	 * @return the timer to cancel, or {@code null} when closed
	 */
	@Nullable ScheduledFuture<?> later(Runnable task, long delayNanos) {
		try {
			return this.timer.schedule(() -> execute(task), delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			return null;
		}
	}

	/**
	 * Run a task on the executor again and again, each run the given delay after the end
	 * of the last, until closed.
	 */
	void repeat(Runnable task, long delayNanos) {
		later(() -> {
			try {
				run(task);
			}
			finally {
				repeat(task, delayNanos);
			}
		}, delayNanos);
	}

	/** Number of timers queued now, cancelled ones included: for tests. */
	int queuedTimers() {
		return this.timer.getQueue().size();
	}

	private static void run(Runnable task) {
		Boolean outer = inTask.get();
		inTask.set(Boolean.TRUE);
		try {
			task.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A background task of redis-lock failed", ex);
		}
		finally {
			if (outer == null) {
				inTask.remove();
			}
		}
	}

	@Override
	public void close() {
		this.timer.shutdown();
		this.own.shutdown();
	}

}
