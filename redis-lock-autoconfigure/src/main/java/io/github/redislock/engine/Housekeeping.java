package io.github.redislock.engine;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Runs the engine's work that nobody waits for, on daemon threads of its own named
 * {@code redis-lock-housekeeping-N}: the periodic sweep of idle subscriptions, and
 * background releases of grants whose acquisition failed or that no waiter took.
 *
 * <p>
 * Each of these may wait for Redis up to the command timeout, which is why none of them
 * runs on the watchdog's thread, where it would hold up renewals, or on the Redis
 * client's thread, which must stay free to deliver answers. Up to {@value #THREADS} run
 * at once, so that a few releases stuck on a stalled cluster shard leave the others
 * going; threads end after {@value #IDLE_SECONDS} seconds without work, except the one
 * that waits for the next sweep.
 *
 * @author redis-lock
 */
final class Housekeeping implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Housekeeping.class);

	private static final int THREADS = 4;

	private static final int IDLE_SECONDS = 10;

	private final ScheduledThreadPoolExecutor executor;

	/**
	 * Start the periodic task.
	 * @param periodic run with the given delay between the end of a run and the start of
	 * the next
	 * @param periodMillis that delay
	 */
	Housekeeping(Runnable periodic, long periodMillis) {
		AtomicInteger count = new AtomicInteger();
		this.executor = new ScheduledThreadPoolExecutor(THREADS, (task) -> {
			Thread thread = new Thread(task, "redis-lock-housekeeping-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.executor.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
		this.executor.allowCoreThreadTimeOut(true);
		this.executor.setRemoveOnCancelPolicy(true);
		this.executor.scheduleWithFixedDelay(guard(periodic), periodMillis, periodMillis, TimeUnit.MILLISECONDS);
	}

	/** Run a task in the background, for work that must not block a caller. */
	void execute(Runnable task) {
		this.executor.execute(guard(task));
	}

	/** Run a task in the background after the given delay. */
	void schedule(Runnable task, long delayNanos) {
		this.executor.schedule(guard(task), delayNanos, TimeUnit.NANOSECONDS);
	}

	private static Runnable guard(Runnable task) {
		return () -> {
			try {
				task.run();
			}
			catch (RuntimeException ex) {
				// A periodic task that throws is never run again.
				logger.warn("redis-lock housekeeping failed", ex);
			}
		};
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
