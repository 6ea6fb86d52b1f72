package io.github.redislock.faults;

import java.util.List;

import io.github.redislock.test.RedisCli;

/**
 * What the nemesis test tells a node, read from the control Redis every 50 ms by one
 * thread: the phase, whether to stop, and storms, on which every storm thread sends a
 * command at once so that many are in flight when the nemesis cuts the connections.
 */
final class NodeControl implements Runnable {

	private static final long POLL_MILLIS = 50;

	private final RedisCli cli;

	private volatile boolean quiet;

	private volatile boolean stopped;

	// Guarded by this: the last storm seen
	private String storm;

	NodeControl(RedisCli cli) {
		this.cli = cli;
	}

	boolean isQuiet() {
		return this.quiet;
	}

	boolean isStopped() {
		return this.stopped;
	}

	/**
	 * Waits until the next storm or the timeout, whichever comes first.
	 * @param timeoutMillis how long to wait at most
	 */
	synchronized void awaitStorm(long timeoutMillis) throws InterruptedException {
		String seen = this.storm;
		long deadline = System.currentTimeMillis() + timeoutMillis;
		long left = timeoutMillis;
		while (left > 0 && !this.stopped && (seen == null ? this.storm == null : seen.equals(this.storm))) {
			wait(left);
			left = deadline - System.currentTimeMillis();
		}
	}

	@Override
	public void run() {
		try {
			while (!this.stopped) {
				List<?> values = (List<?>) this.cli.command("MGET", NemesisSettings.PHASE, NemesisSettings.STOP,
						NemesisSettings.STORM);
				this.quiet = "quiet".equals(values.get(0));
				boolean stop = values.get(1) != null;
				synchronized (this) {
					this.stopped = stop;
					this.storm = (String) values.get(2);
					notifyAll();
				}
				Thread.sleep(POLL_MILLIS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
