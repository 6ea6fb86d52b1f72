package io.github.redislock.engine;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Where the engine's work runs, but for the watchdog's renewals: a timer thread,
 * {@code redis-lock-timer}, that only hands work on when due, and an executor for the
 * work (pending acquisitions' rounds and futures, background releases, hand-over checks,
 * the sweep of idle subscriptions, opening connections for callers that must not wait).
 *
 * <h2>Design notes</h2>
 *
 * The executor is the application's when it gives one (virtual threads with
 * {@code spring.threads.virtual.enabled=true}), else daemon threads of the engine's own,
 * {@code redis-lock-housekeeping-N}, up to eight or twice the processors; work the
 * application's executor refuses runs there. Some work waits for Redis, so none runs on
 * the Redis client's threads, which must stay free to deliver answers, nor on the
 * watchdog's; the pool is large enough that releases stuck on a stalled shard leave
 * rounds and sweeps going. A round never waits for Redis, but what a caller chains to its
 * future runs here too. Both are {@link ScheduledThreadPoolExecutor}s, so a reactive
 * caller that hands work on waits for one heap operation, never for I/O; a cancelled
 * timer leaves the queue at once, or a woken waiter's timers would pile up by the million
 * ({@code PendingTimersTests}). Once closed, work handed over still runs, deadlines and
 * retries are dropped, and later work runs on the calling thread, failing at once on the
 * closed connections rather than leave a future pending.
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

	/** No thread starts before the first task; {@code null} means the own pool. */
	EngineThreads(@Nullable Executor executor) {
		this.timer = pool(1, "redis-lock-timer");
		this.own = pool(THREADS, "redis-lock-housekeeping-");
		this.executor = (executor != null) ? executor : this.own;
	}

	private static ScheduledThreadPoolExecutor pool(int threads, String name) {
		AtomicInteger count = new AtomicInteger();
		ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(threads, (task) -> {
			Thread thread = new Thread(task, (threads > 1) ? name + count.incrementAndGet() : name);
			thread.setDaemon(true);
			return thread;
		});
		pool.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
		pool.allowCoreThreadTimeOut(true);
		pool.setRemoveOnCancelPolicy(true);
		pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return pool;
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

	/** Run a task that completes a caller's future: at once when on these threads. */
	void complete(Runnable task) {
		if (inTask.get() != null) {
			run(task);
		}
		else {
			execute(task);
		}
	}

	/** Run a wake-up after the delay; return its timer, or run it now once closed. */
	@Nullable ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		ScheduledFuture<?> timer = later(task, unit.toNanos(delay));
		if (timer == null) {
			run(task);
		}
		return timer;
	}

	/** Run a deadline or a retry after the delay; return its timer, none once closed. */
	@Nullable ScheduledFuture<?> later(Runnable task, long delayNanos) {
		try {
			return this.timer.schedule(() -> execute(task), delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			return null;
		}
	}

	/** Run a task again and again, the delay after each run, until closed. */
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
