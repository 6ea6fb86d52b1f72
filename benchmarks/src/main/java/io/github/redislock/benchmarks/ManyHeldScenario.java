package io.github.redislock.benchmarks;

import java.time.Duration;

import io.github.redislock.test.RedisCli;

/**
 * One JVM holds many locks with no fixed lease, so that its watchdog renews them, for a
 * measured window; then releases them. For each number of locks: the Redis commands and
 * round trips the renewals cost, the CPU of the client and of Redis, locks lost (there
 * must be none) and the heap each held lock takes.
 * <p>
 * Taking the locks is not measured: the window starts once they are all held and the JIT
 * compilers have settled. Renewals are periodic, so a window of whole renew intervals
 * sees each lock renewed once per interval wherever it starts. Before the first window a
 * short {@link MonitorProbe} watches the first renewals, which tells the commands clients
 * sent from those run inside scripts.
 */
final class ManyHeldScenario {

	static final String KEY_PREFIX = "many-held:";

	/**
	 * Locks taken and released before each count, with a fixed lease so that the watchdog
	 * is not involved, so that the client's connections, scripts and caches are set up
	 * before the heap is first read.
	 */
	private static final int WARMUP_LOCKS = 500;

	/** A lease the warm-up locks outlive by far. */
	private static final Duration WARMUP_LEASE = Duration.ofSeconds(30);

	/** Client commands the probe waits for, at most one per held lock. */
	private static final int PROBED_COMMANDS = 100;

	/**
	 * Time for per-key state that is dropped on a timer to go (redis-lock lingers 1 s).
	 */
	private static final long SETTLE_MILLIS = 2000;

	private ManyHeldScenario() {
	}

	static Figures run(ScenarioContext context) throws Exception {
		BenchmarkSettings settings = context.settings();
		Figures figures = new Figures();
		try (RedisCli cli = context.cli()) {
			boolean first = true;
			for (int count : settings.heldCounts()) {
				// A client of its own per count: Redisson's watchdog was seen renewing
				// every lock twice per interval and more once locks had been released
				// and taken again on the same client
				try (LockClient client = context.openClient()) {
					Duration interval = client.renewInterval();
					figures.put("renewIntervalSeconds", interval.toMillis() / 1e3)
						.put("noticesLoss", client.noticesLoss());
					hold(context, cli, client, count, interval, first, figures);
				}
				first = false;
				Thread.sleep(SETTLE_MILLIS);
			}
		}
		return figures;
	}

	/**
	 * Take the locks, measure while holding them, release them. The first time, a probe
	 * watches the first renewals, which also runs the renewal path often enough that the
	 * JIT compilers have begun with it.
	 */
	private static void hold(ScenarioContext context, RedisCli cli, LockClient client, int count, Duration interval,
			boolean first, Figures figures) throws Exception {
		String prefix = "held." + count + ".";
		for (int i = 0; i < WARMUP_LOCKS; i++) {
			client.acquire(KEY_PREFIX + "warmup:" + count + ":" + i, WARMUP_LEASE).release();
		}
		long[] before = HeapUsage.afterCollections();
		long start = System.nanoTime();
		try (HeldLocks held = HeldLocks.acquire(client, KEY_PREFIX + count + ":", count)) {
			long acquired = System.nanoTime();
			figures.put(prefix + "acquireSeconds", (acquired - start) / 1e9);
			if (first) {
				probe(context, cli, count, interval, figures);
				// Until every lock was renewed once, a tick late at most
				ScenarioContext.sleepUntil(acquired + interval.toNanos() * 11 / 10);
			}
			Warmup.awaitQuietCompilers(interval.dividedBy(2));
			measure(cli, context.settings().heldDuration(), figures, prefix);
			long[] after = HeapUsage.afterCollections();
			HeldLocks.Outcome outcome = held.releaseAll();
			figures.put(prefix + "heapBytesPerLock", (double) (after[1] - before[1]) / count)
				.put(prefix + "heapNoiseBytesPerLock",
						(double) Math.max(before[2] - before[0], after[2] - after[0]) / count)
				.put(prefix + "lost", outcome.lost())
				.put(prefix + "lossNoticed", outcome.lossNoticed());
		}
	}

	/**
	 * Watch the first renewals with MONITOR, until clients sent some commands or an
	 * interval and a half passed, and keep the share of each command that clients sent.
	 */
	private static void probe(ScenarioContext context, RedisCli cli, int count, Duration interval, Figures figures)
			throws InterruptedException {
		MonitorProbe probe = MonitorProbe.start(context.host(), context.port());
		probe.awaitClientCommands(Math.min(count, PROBED_COMMANDS), interval.multipliedBy(3).dividedBy(2));
		probe.finish(cli);
		CommandCounts.writeShares(probe.clientShares(), figures);
		figures.put("probe.clientCommands", probe.clientCommands()).put("probe.scriptCommands", probe.scriptCommands());
	}

	/**
	 * Hold the locks for the window, and record what Redis ran and what both processes
	 * used meanwhile.
	 */
	private static void measure(RedisCli cli, Duration window, Figures figures, String prefix)
			throws InterruptedException {
		RedisActivity redis = new RedisActivity(cli);
		ThreadCpu threadCpu = ThreadCpu.start();
		redis.start();
		long clientCpu = -CpuTime.process();
		long writesBefore = ClientWrites.count();
		long start = System.nanoTime();
		ScenarioContext.sleepUntil(start + window.toNanos());
		clientCpu += CpuTime.process();
		long writesAfter = ClientWrites.count();
		long elapsed = System.nanoTime() - start;
		redis.stop();
		figures.put(prefix + "windowSeconds", elapsed / 1e9)
			.put(prefix + "clientCpuMicros", clientCpu / 1e3)
			.put(prefix + "redisCpuMicros", redis.cpuNanos() / 1e3)
			.put(prefix + "busiestThreads", threadCpu.busiest());
		if (writesBefore >= 0 && writesAfter >= 0) {
			figures.put(prefix + "clientWrites", writesAfter - writesBefore);
		}
		redis.commands().writeTo(figures, prefix);
	}

}
