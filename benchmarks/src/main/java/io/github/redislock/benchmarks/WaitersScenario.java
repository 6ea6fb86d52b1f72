package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Arrays;

import reactor.core.publisher.Mono;

import io.github.redislock.test.RedisCli;

/**
 * Many threads wait on a key that a {@link LockHolder} in another JVM holds: what does
 * waiting cost (CPU of this JVM, Redis commands), and how soon after the release are the
 * waiters granted, one after the other?
 * <p>
 * A round: the holder takes the key, the {@link Waiters} ask for it and settle into
 * waiting, the holder releases, every waiter takes and releases the key in turn. The
 * first round runs cold, right after a warm-up of uncontended locks, with the cost of
 * waiting measured over a window while the key is held: it is what an application sees
 * the first time its threads wait. Rounds then run unmeasured for the warm-up time, so
 * that both JVMs have run their wait, wake and release paths often enough to compile
 * them, and then the measured rounds, whose release to first and last grant are reported
 * as median and max. Grant times are wall-clock microseconds, compared across the two
 * JVMs of one machine.
 * <p>
 * With a {@link ReactiveLockClient}, the waiters are as many reactive chains
 * ({@link ReactiveWaiters}), warmed up on the reactive path; the holder takes the key
 * with the same library's blocking API.
 */
final class WaitersScenario {

	static final String KEY = "contended";

	/** How long every waiter must have been parked before the key is released. */
	private static final Duration SETTLED = Duration.ofMillis(500);

	/** The same in warm-up rounds, which need the waiters waiting, not measured. */
	private static final Duration WARMUP_SETTLED = Duration.ofMillis(50);

	/** Warm-up rounds at least, however long they take. */
	private static final int WARMUP_ROUNDS = 5;

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private WaitersScenario() {
	}

	static Figures run(ScenarioContext context) throws Exception {
		BenchmarkSettings settings = context.settings();
		try (RedisCli cli = context.cli();
				LockClient client = context.openClient();
				LockHolder.Control holder = LockHolder.Control.start(context);
				WaitingCallers waiters = waiters(client, settings.waiters())) {
			if (client instanceof ReactiveLockClient reactive) {
				warmUpReactive(reactive, settings.warmup());
			}
			else {
				warmUp(client, settings.warmup(), "waiters");
			}
			WaitWindow window = new WaitWindow(cli, waiters, settings.waitWindow());
			Round cold = round(holder, waiters, 0, SETTLED, () -> {
				// The warm-up left the compilers busy: their CPU is not the waiters'
				Warmup.awaitQuietCompilers(TIMEOUT);
				window.measure();
			});
			long grantedWhileHeld = cold.grantedWhileHeld();
			int round = 1;
			long warmupEnd = System.nanoTime() + settings.warmup().toNanos();
			while (round <= WARMUP_ROUNDS || System.nanoTime() - warmupEnd < 0) {
				grantedWhileHeld += round(holder, waiters, round++, WARMUP_SETTLED, () -> {
				}).grantedWhileHeld();
			}
			Warmup.awaitQuietCompilers(TIMEOUT);
			Samples first = new Samples();
			Samples last = new Samples();
			for (int i = 0; i < settings.rounds(); i++) {
				Round measured = round(holder, waiters, round++, SETTLED, () -> {
				});
				first.add(measured.firstGrantMicros());
				last.add(measured.lastGrantMicros());
				grantedWhileHeld += measured.grantedWhileHeld();
			}
			Figures figures = new Figures().put("waiters", settings.waiters())
				.put("rounds", settings.rounds())
				.put("warmupRounds", round - 1 - settings.rounds())
				.put("grantedWhileHeld", grantedWhileHeld)
				.put("cold.firstGrantMicros", cold.firstGrantMicros())
				.put("cold.lastGrantMicros", cold.lastGrantMicros())
				.put("warm.firstGrantMedianMicros", first.percentile(0.5))
				.put("warm.firstGrantMaxMicros", first.max())
				.put("warm.lastGrantMedianMicros", last.percentile(0.5))
				.put("warm.lastGrantMaxMicros", last.max());
			window.writeTo(figures);
			return figures;
		}
	}

	/**
	 * One round: the holder takes the key, the waiters ask for it and settle, the action
	 * runs, the holder releases and every waiter is granted in turn.
	 */
	private static Round round(LockHolder.Control holder, WaitingCallers waiters, int round, Duration settled,
			WhileHeld whileHeld) throws Exception {
		holder.hold(round);
		waiters.request();
		waiters.awaitSettled(settled, TIMEOUT);
		whileHeld.run();
		int grantedEarly = waiters.granted();
		long releasedAt = holder.release(round);
		long[] grantedAt = waiters.awaitGrants(TIMEOUT);
		return new Round(Arrays.stream(grantedAt).min().getAsLong() - releasedAt,
				Arrays.stream(grantedAt).max().getAsLong() - releasedAt, grantedEarly);
	}

	/**
	 * Take and release distinct keys for a while, so that the first round does not run
	 * the lock's most basic code cold. Nobody waits, so no subscription is left to linger
	 * into the measured window.
	 */
	static void warmUp(LockClient client, Duration duration, String name) {
		long end = System.nanoTime() + duration.toNanos();
		for (int i = 0; System.nanoTime() - end < 0; i++) {
			client.acquire("waiters-warmup:" + name + ":" + i).release();
		}
	}

	/** The same on the reactive path, one lock at a time. */
	private static void warmUpReactive(ReactiveLockClient client, Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		for (int i = 0; System.nanoTime() - end < 0; i++) {
			client.execute("waiters-warmup:waiters:" + i, Mono.empty()).block(LockClient.WAIT_LIMIT);
		}
	}

	private static WaitingCallers waiters(LockClient client, int count) {
		return (client instanceof ReactiveLockClient reactive) ? new ReactiveWaiters(reactive, count)
				: new Waiters(client, count);
	}

	/** What runs while the waiters wait on the held key. */
	@FunctionalInterface
	private interface WhileHeld {

		void run() throws Exception;

	}

	/**
	 * Release to grant times of one round.
	 *
	 * @param firstGrantMicros from the release to the first grant
	 * @param lastGrantMicros from the release to the last grant
	 * @param grantedWhileHeld grants before the release: must be none
	 */
	private record Round(long firstGrantMicros, long lastGrantMicros, int grantedWhileHeld) {
	}

}
