package io.github.redislock.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * redis-lock's targets against what no lock could beat rather than against its peers: the
 * hot key against the local fair lock and the critical section alone, the uncontended
 * lock against the raw floor's cost in Redis, and the renewal of many held locks. They
 * say "no" where the engine does not meet them yet: that is what is left to do, not a
 * reason to lower them.
 */
final class LimitTargets {

	/**
	 * Held locks per batch in the renewal target: the watchdog writes renewals to its
	 * connection a thousand at a time.
	 */
	static final int RENEWAL_BATCH = 1000;

	private final Map<Scenario, Map<Implementation, Figures>> results;

	LimitTargets(Map<Scenario, Map<Implementation, Figures>> results) {
		this.results = results;
	}

	void addTo(List<Target> targets) {
		uncontended(targets);
		hotKey(targets);
		manyHeld(targets);
	}

	private void uncontended(List<Target> targets) {
		Figures lock = succeeded(Scenario.UNCONTENDED, Implementation.REDIS_LOCK);
		if (lock == null) {
			return;
		}
		Figures floor = ran(Scenario.UNCONTENDED, Implementation.RAW_FLOOR);
		String goal = "Uncontended: Redis CPU per lock + release at most 1.2x the raw floor's";
		if (floor != null && floor.isFailed()) {
			targets.add(new Target(goal, "raw floor failed: " + floor.failure(), null));
		}
		else if (floor != null) {
			double ratio = ResultsReport.redisCpuPerOperation(lock) / ResultsReport.redisCpuPerOperation(floor);
			targets.add(new Target(goal,
					MarkdownTable.ratio(ratio) + " (" + MarkdownTable.micros(ResultsReport.redisCpuPerOperation(lock))
							+ " vs " + MarkdownTable.micros(ResultsReport.redisCpuPerOperation(floor)) + " µs)",
					ratio <= 1.2));
		}
		double commands = ResultsReport.commandsPerOperation(lock);
		targets
			.add(new Target("Uncontended: at most 6 commands in Redis per lock + release, those scripts run included",
					Figures.decimal(commands), commands <= 6));
	}

	private void hotKey(List<Target> targets) {
		Figures oneJvm = succeeded(Scenario.HOT_KEY, Implementation.REDIS_LOCK);
		Figures fairLimit = ran(Scenario.HOT_KEY, Implementation.LIMIT_LOCAL_FAIR);
		if (oneJvm != null && fairLimit != null) {
			String goal = "One hot key, one JVM: at least 0.95x the local fair lock's ops/s";
			String stretch = "One hot key, one JVM (stretch): at least 1.2x the local fair lock's ops/s, "
					+ "max wait at most 20 ms";
			if (fairLimit.isFailed()) {
				targets.add(new Target(goal, "local fair lock failed: " + fairLimit.failure(), null));
				targets.add(new Target(stretch, "local fair lock failed: " + fairLimit.failure(), null));
			}
			else {
				double ratio = oneJvm.getDouble("opsPerSecond") / fairLimit.getDouble("opsPerSecond");
				double maxWait = oneJvm.getDouble("waitMaxMicros");
				targets.add(new Target(goal, versus(ratio, oneJvm, fairLimit), ratio >= 0.95));
				targets.add(new Target(stretch,
						MarkdownTable.ratio(ratio) + ", max wait " + MarkdownTable.millis(maxWait) + " ms",
						ratio >= 1.2 && maxWait <= 20_000));
			}
		}
		Figures twoJvms = succeeded(Scenario.HOT_KEY_TWO_JVMS, Implementation.REDIS_LOCK);
		Figures alone = ran(Scenario.HOT_KEY_TWO_JVMS, Implementation.LIMIT_SINGLE_THREAD);
		if (twoJvms != null && alone != null) {
			String goal = "One hot key, two JVMs: at least 0.9x the critical section's ops/s alone on one thread";
			if (alone.isFailed()) {
				targets.add(new Target(goal, "critical section alone failed: " + alone.failure(), null));
			}
			else {
				double ratio = twoJvms.getDouble("opsPerSecond") / alone.getDouble("opsPerSecond");
				targets.add(new Target(goal, versus(ratio, twoJvms, alone), ratio >= 0.9));
			}
		}
	}

	private static String versus(double ratio, Figures lock, Figures limit) {
		return MarkdownTable.ratio(ratio) + " (" + MarkdownTable.count(lock.getDouble("opsPerSecond")) + " vs "
				+ MarkdownTable.count(limit.getDouble("opsPerSecond")) + ")";
	}

	private void manyHeld(List<Target> targets) {
		Figures lock = succeeded(Scenario.MANY_HELD, Implementation.REDIS_LOCK);
		if (lock == null) {
			return;
		}
		List<HeldWindow> windows = HeldWindow.of(Implementation.REDIS_LOCK, lock);
		if (windows.isEmpty()) {
			return;
		}
		// A round trip is a send the client makes, however many commands it pipelines
		// into it: its write system calls, where the system counts them.
		boolean batched = windows.stream()
			.allMatch((window) -> window.clientWritesPerInterval() <= allowedRoundTrips(window.count()));
		String measured = windows.stream()
			.map((window) -> MarkdownTable.count(window.count()) + " held: "
					+ MarkdownTable.count(window.clientWritesPerInterval()) + " writes, "
					+ MarkdownTable.count(window.roundTripsPerInterval()) + " script calls (allowed "
					+ allowedRoundTrips(window.count()) + ")")
			.collect(Collectors.joining("; "));
		targets.add(new Target(
				"Many held locks: renewal round trips (the client's write system calls) per renew "
						+ "interval at most 1 per " + MarkdownTable.count(RENEWAL_BATCH) + " held locks",
				measured, batched));
		long lost = windows.stream().mapToLong(HeldWindow::lost).sum();
		long held = windows.stream().mapToLong(HeldWindow::count).sum();
		targets.add(new Target("Many held locks: no lock lost", lost + " of " + MarkdownTable.count(held), lost == 0));
	}

	/** Round trips allowed per renew interval: one per batch, a batch begun counting. */
	static long allowedRoundTrips(int heldLocks) {
		return (heldLocks + RENEWAL_BATCH - 1) / RENEWAL_BATCH;
	}

	/** The figures of a run, failed or not; {@code null} if it did not run. */
	private @Nullable Figures ran(Scenario scenario, Implementation implementation) {
		return this.results.getOrDefault(scenario, Map.of()).get(implementation);
	}

	/**
	 * The figures of a run that went to the end; {@code null} if it did not run or failed
	 * (the targets' table says so once for redis-lock).
	 */
	private @Nullable Figures succeeded(Scenario scenario, Implementation implementation) {
		Figures figures = ran(scenario, implementation);
		return (figures != null && !figures.isFailed()) ? figures : null;
	}

}
