package io.github.redislock.autoconfigure;

import java.time.Duration;

import org.springframework.context.SmartLifecycle;

import io.github.redislock.LockEngine;

/**
 * Shuts the {@link LockEngine} down gracefully when the application context closes
 * ({@link LockEngine#shutdown(Duration)}), before the Redis connection factory stops:
 * acquisitions and waiting threads fail with a
 * {@link io.github.redislock.LockShutdownException}, holders get the shutdown phase's
 * time to finish, and what is still held then is released in Redis.
 *
 * <h2>Design notes</h2>
 *
 * The phase, {@value #PHASE}, is lower than the web server's graceful shutdown and its
 * stop ({@code DEFAULT_PHASE - 1024} and {@code - 2048}), so requests still running when
 * they stop may take locks, and higher than Spring Data Redis'
 * {@code LettuceConnectionFactory} (phase 0), whose connections the release needs. Phases
 * stop from the highest down.
 *
 * <p>
 * The shutdown runs on a thread of its own ({@link #stop(Runnable)}), so other beans of
 * the phase stop meanwhile. The context waits for it up to
 * {@code spring.lifecycle.timeout-per-shutdown-phase} and then moves on to the next
 * phases, whatever it does: so the holders' grace is that time less a margin, in which
 * the engine releases what is left and withdraws its waiters while the connection is
 * still open.
 *
 * @author redis-lock
 */
final class LockEngineShutdownLifecycle implements SmartLifecycle {

	/**
	 * The phase: after the web server's shutdown, before the Redis connection factory's.
	 */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	/** The most of the phase's time kept for releasing what is still held. */
	private static final Duration MAX_MARGIN = Duration.ofSeconds(2);

	private final LockEngine engine;

	private final Duration grace;

	private volatile boolean running;

	/**
	 * Create the lifecycle of an engine.
	 * @param engine the engine to shut down
	 * @param phaseTimeout how long the context waits for a shutdown phase
	 */
	LockEngineShutdownLifecycle(LockEngine engine, Duration phaseTimeout) {
		this.engine = engine;
		this.grace = grace(phaseTimeout);
	}

	/**
	 * The holders' grace within a phase of the given length: all of it but a quarter, or
	 * two seconds when that is less.
	 */
	static Duration grace(Duration phaseTimeout) {
		Duration quarter = phaseTimeout.dividedBy(4);
		Duration margin = (quarter.compareTo(MAX_MARGIN) < 0) ? quarter : MAX_MARGIN;
		Duration grace = phaseTimeout.minus(margin);
		return grace.isNegative() ? Duration.ZERO : grace;
	}

	Duration grace() {
		return this.grace;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		shutdown();
	}

	@Override
	public void stop(Runnable callback) {
		this.running = false;
		Thread thread = new Thread(() -> {
			try {
				shutdown();
			}
			finally {
				callback.run();
			}
		}, "redis-lock-shutdown");
		thread.setDaemon(true);
		thread.start();
	}

	private void shutdown() {
		this.engine.shutdown(this.grace);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
