package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.ReactiveCurrentLock;
import io.github.redislock.ReactiveLockTemplate;
import io.github.redislock.faults.LockLossHistory.Hold;
import io.github.redislock.test.RedisCli;

/**
 * A thread of a lock-loss node: locks the hot names over and over with a kind (exclusive,
 * fair, read, write, permits), a lease (the watchdog's or a fixed one) and a caller
 * (blocking, the engine's asynchronous acquisition, the reactive template) drawn at
 * random, holds each for 0 to 1 ms, and records every acquisition. Right after each grant
 * it reads Redis's {@code TIME} on a connection of its own, the bound its token must
 * meet.
 */
final class LockLossWorker implements Runnable {

	private static final List<String> KINDS = List.of("X", "F", "R", "W", "P");

	/** How long past its wait an acquisition may take before it counts as hung. */
	private static final long HUNG_MILLIS = 30_000;

	private final String name;

	private final String node;

	private final LockTemplate template;

	private final ReactiveLockTemplate reactive;

	private final LockEngine engine;

	private final NodeControl control;

	private final RedisCli clock;

	private final Consumer<String> history;

	private final Random random;

	LockLossWorker(String name, String node, LockEngine engine, LockTemplate template, NodeControl control,
			RedisCli clock, Consumer<String> history, long seed) {
		this.name = name;
		this.node = node;
		this.engine = engine;
		this.template = template;
		this.reactive = new ReactiveLockTemplate(engine);
		this.control = control;
		this.clock = clock;
		this.history = history;
		this.random = new Random(seed);
	}

	@Override
	public void run() {
		for (int iteration = 1; !this.control.isStopped(); iteration++) {
			List<String> names = LockLossSettings.NAMES;
			String lockName = this.random.nextBoolean() ? names.get(0) : names.get(this.random.nextInt(names.size()));
			String kind = KINDS.get(this.random.nextInt(KINDS.size()));
			long lease = this.random.nextBoolean() ? 0 : LockLossSettings.MIN_FIXED_LEASE_MILLIS + this.random
				.nextInt(LockLossSettings.MAX_FIXED_LEASE_MILLIS - LockLossSettings.MIN_FIXED_LEASE_MILLIS);
			int callerDraw = this.random.nextInt(4);
			String caller = (callerDraw < 2) ? "blocking" : (callerDraw == 2) ? "async" : "reactive";
			long wait = waitMillis();
			Attempt attempt = new Attempt(this.name + "-" + iteration, lockName, kind, lease, caller, wait,
					this.random.nextInt(1001));
			try {
				switch (caller) {
					case "blocking" -> blocking(attempt);
					case "async" -> async(attempt);
					default -> reactive(attempt);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			this.history.accept(attempt.hold().format());
		}
	}

	/**
	 * Mostly the wait within which every acquisition must succeed once faults stop; while
	 * they strike, some short waits and single attempts too.
	 */
	private long waitMillis() {
		if (!this.control.isQuiet() && this.random.nextInt(100) < 15) {
			return this.random.nextInt(300);
		}
		return LockLossSettings.QUIET_WAIT.toMillis();
	}

	private void blocking(Attempt attempt) throws InterruptedException {
		LockHandle handle;
		try {
			handle = this.template.tryLock(attempt.request()).orElse(null);
		}
		catch (LockTimeoutException ex) {
			handle = null;
		}
		catch (RuntimeException ex) {
			attempt.failed(ex);
			return;
		}
		if (handle == null) {
			attempt.outcome = "TIMEOUT";
			return;
		}
		attempt.hold(handle);
		try {
			handle.close();
			attempt.released(null);
		}
		catch (RuntimeException ex) {
			attempt.released(ex);
		}
	}

	private void async(Attempt attempt) throws InterruptedException {
		CompletableFuture<LockHandle> grant = null;
		LockHandle handle;
		try {
			grant = this.engine.acquireAsync(attempt.request(), Duration.ofMillis(attempt.waitMillis));
			handle = grant.get(attempt.waitMillis + HUNG_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			attempt.failed(ex.getCause());
			return;
		}
		catch (TimeoutException | RuntimeException ex) {
			attempt.failed(ex);
			if (grant != null) {
				// Withdrawn, so that a late grant is given back
				grant.cancel(false);
			}
			return;
		}
		if (handle == null) {
			attempt.outcome = "TIMEOUT";
			return;
		}
		attempt.hold(handle);
		try {
			handle.closeAsync().toCompletableFuture().get(HUNG_MILLIS, TimeUnit.MILLISECONDS);
			attempt.released(null);
		}
		catch (ExecutionException ex) {
			attempt.released(ex.getCause());
		}
		catch (TimeoutException | RuntimeException ex) {
			attempt.released(ex);
		}
	}

	private void reactive(Attempt attempt) {
		// The section blocks (TIME, the pause), so it runs off the engine's threads.
		Mono<Long> action = ReactiveCurrentLock.handle()
			.publishOn(Schedulers.boundedElastic())
			.map((handle) -> holdOrInterrupt(attempt, handle));
		try {
			this.reactive.execute(attempt.request(), action).block(Duration.ofMillis(attempt.waitMillis + HUNG_MILLIS));
			attempt.released(null);
		}
		catch (RuntimeException ex) {
			if (attempt.grantedMicros == 0) {
				attempt.failed(ex);
			}
			else {
				attempt.released(ex);
			}
		}
	}

	private long holdOrInterrupt(Attempt attempt, LockHandle handle) {
		try {
			attempt.hold(handle);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return handle.fencingToken();
	}

	/** Redis's clock, read right after a grant; -1 when Redis does not answer. */
	private long serverMicros() {
		try {
			List<?> time = (List<?>) this.clock.command("TIME");
			return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
		}
		catch (RuntimeException ex) {
			return -1;
		}
	}

	/** One acquisition as it goes, recorded as a {@link Hold} once over. */
	private final class Attempt {

		private final String holdId;

		private final String lockName;

		private final String kind;

		private final long leaseMillis;

		private final String caller;

		private final long waitMillis;

		private final long sectionMicros;

		private final long callMicros = LockLossHistory.nowMicros();

		private volatile long grantedMicros;

		private volatile long closeMicros;

		private volatile long closedMicros;

		private volatile String outcome = "GRANTED";

		private volatile long token;

		private volatile long serverMicros;

		private volatile String release = "-";

		private volatile boolean told;

		private volatile String detail = "-";

		Attempt(String holdId, String lockName, String kind, long leaseMillis, String caller, long waitMillis,
				long sectionMicros) {
			this.holdId = holdId;
			this.lockName = lockName;
			this.kind = kind;
			this.leaseMillis = leaseMillis;
			this.caller = caller;
			this.waitMillis = waitMillis;
			this.sectionMicros = sectionMicros;
		}

		LockRequest request() {
			LockRequest request = switch (this.kind) {
				case "X" -> LockRequest.of(this.lockName);
				case "F" -> LockRequest.of(this.lockName).fair(true);
				case "R" -> LockRequest.read(this.lockName);
				case "P" -> LockRequest.permit(this.lockName, LockLossSettings.PERMIT_LIMIT);
				default -> LockRequest.write(this.lockName);
			};
			if (this.leaseMillis > 0) {
				request = request.leaseTime(Duration.ofMillis(this.leaseMillis));
			}
			return request.waitTime(Duration.ofMillis(this.waitMillis));
		}

		/** The critical section: TIME, 0 to 1 ms of work, and a last look at the lock. */
		void hold(LockHandle handle) throws InterruptedException {
			this.grantedMicros = LockLossHistory.nowMicros();
			this.token = handle.fencingToken();
			this.serverMicros = serverMicros();
			if (this.sectionMicros > 0) {
				LockSupport.parkNanos(this.sectionMicros * 1000);
			}
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			this.told = !handle.isHeld();
			this.closeMicros = LockLossHistory.nowMicros();
		}

		void released(Throwable failure) {
			this.closedMicros = LockLossHistory.nowMicros();
			if (failure == null) {
				this.release = "OK";
				return;
			}
			this.release = (failure instanceof LockLostException) ? "LOST"
					: (failure instanceof LockAccessException) ? "ACCESS" : "ERROR";
			this.told |= failure instanceof LockLostException;
			this.detail = describe(failure);
		}

		void failed(Throwable failure) {
			this.outcome = (failure instanceof LockTimeoutException) ? "TIMEOUT"
					: (failure instanceof LockAccessException) ? "ACCESS" : "ERROR";
			this.detail = describe(failure);
		}

		Hold hold() {
			return new Hold(this.holdId, LockLossWorker.this.node, this.lockName, this.kind, this.leaseMillis,
					this.caller, this.waitMillis, this.callMicros, this.grantedMicros, this.closeMicros,
					this.closedMicros, this.outcome, this.token, this.serverMicros, this.release, this.told,
					this.detail);
		}

		private String describe(Throwable failure) {
			Throwable cause = failure.getCause();
			StackTraceElement[] frames = failure.getStackTrace();
			return failure.getClass().getSimpleName() + ": " + failure.getMessage()
					+ ((cause != null) ? " caused by " + cause.getClass().getSimpleName() : "")
					+ ((frames.length > 0 && !(failure instanceof LockAccessException)) ? " at " + frames[0] : "");
		}

	}

}
