package io.github.redislock.samples.flashsale.demo;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A one-line progress bar redrawn in place with carriage returns, ten times a second, by
 * a thread of its own so that the threads doing the work never write to the console.
 *
 * @author redis-lock
 */
final class ProgressBar implements AutoCloseable {

	private static final int WIDTH = 40;

	private final PrintStream out;

	private final String label;

	private final int total;

	private final AtomicInteger done = new AtomicInteger();

	private final ScheduledExecutorService ticker;

	ProgressBar(PrintStream out, String label, int total) {
		this.out = out;
		this.label = label;
		this.total = total;
		this.ticker = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "progress-bar");
			thread.setDaemon(true);
			return thread;
		});
		this.ticker.scheduleAtFixedRate(this::draw, 0, 100, TimeUnit.MILLISECONDS);
	}

	/**
	 * Count one more unit of work done. Safe from any thread.
	 */
	void step() {
		this.done.incrementAndGet();
	}

	/**
	 * Draw the final state and end the line.
	 */
	@Override
	public void close() {
		this.ticker.shutdownNow();
		try {
			this.ticker.awaitTermination(1, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		draw();
		this.out.println();
	}

	private synchronized void draw() {
		int done = Math.min(this.done.get(), this.total);
		int filled = (this.total > 0) ? done * WIDTH / this.total : WIDTH;
		this.out.printf("\r  %-8s [%s%s] %,6d/%,d", this.label, "#".repeat(filled), ".".repeat(WIDTH - filled), done,
				this.total);
		this.out.flush();
	}

}
