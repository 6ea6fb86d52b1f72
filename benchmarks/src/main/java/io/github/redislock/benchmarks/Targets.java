package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * The goals redis-lock set itself against its peers, checked against a run's figures.
 * Targets whose scenario or implementations did not run are left out. Where redis-lock
 * failed, the scenario's targets give way to one row that says so; where the
 * implementation a target compares with failed, the target says so and is not checked;
 * peers that failed are named next to the best peer that did not.
 */
final class Targets {

	private final Map<Scenario, Map<Implementation, Figures>> results;

	Targets(Map<Scenario, Map<Implementation, Figures>> results) {
		this.results = results;
	}

	MarkdownTable table() {
		MarkdownTable table = new MarkdownTable("Target for redis-lock", "Measured", "Met");
		List<Target> targets = new ArrayList<>();
		failures(targets);
		uncontended(targets);
		hotKey(targets, Scenario.HOT_KEY, 2.0, true);
		hotKey(targets, Scenario.HOT_KEY_TWO_JVMS, 1.0, false);
		new LimitTargets(this.results).addTo(targets);
		waiters(targets);
		reactiveWaiters(targets);
		manyKeys(targets);
		lostUpdates(targets);
		readWrite(targets);
		targets.forEach((target) -> table.row(target.goal(), target.measured(), target.verdict()));
		return table;
	}

	private void failures(List<Target> targets) {
		this.results.forEach((scenario, figures) -> figures.forEach((implementation, lock) -> {
			if (implementation.isRedisLock() && lock.isFailed()) {
				targets.add(new Target(scenario.title() + ": " + implementation.title() + " runs to the end",
						"failed: " + lock.failure(), false));
			}
		}));
	}

	private void uncontended(List<Target> targets) {
		Figures lock = figures(Scenario.UNCONTENDED, Implementation.REDIS_LOCK);
		Figures floor = this.results.getOrDefault(Scenario.UNCONTENDED, Map.of()).get(Implementation.RAW_FLOOR);
		if (lock == null) {
			return;
		}
		String goal = "Uncontended lock + release within 1.15x of the raw floor";
		if (floor != null && floor.isFailed()) {
			targets.add(new Target(goal, "raw floor failed: " + floor.failure(), null));
		}
		else if (floor != null) {
			double ratio = floor.getDouble("opsPerSecond") / lock.getDouble("opsPerSecond");
			targets.add(
					new Target(goal,
							MarkdownTable.ratio(ratio) + " (p50 " + MarkdownTable.micros(lock.getDouble("p50Micros"))
									+ " vs " + MarkdownTable.micros(floor.getDouble("p50Micros")) + " µs)",
							ratio <= 1.15));
		}
		double roundTrips = (double) lock.getLong("probe.clientCommands") / lock.getLong("probe.operations");
		targets.add(new Target("Uncontended: 2 round trips per lock + release", Figures.decimal(roundTrips),
				roundTrips <= 2.0));
	}

	private void hotKey(List<Target> targets, Scenario scenario, double factor, boolean maxWait) {
		Figures lock = figures(scenario, Implementation.REDIS_LOCK);
		String goal = scenario.title() + ": at least " + Figures.decimal(factor) + "x the best peer's ops/s";
		String waitGoal = scenario.title() + ": " + (maxWait ? "max" : "p99") + " wait at most the best peer's";
		if (lock == null) {
			return;
		}
		String failedPeers = failedPeers(scenario);
		Optional<Map.Entry<Implementation, Figures>> best = bestPeer(scenario);
		if (best.isEmpty()) {
			if (!failedPeers.isEmpty()) {
				targets.add(new Target(goal, "no peer ran to the end" + failedPeers, null));
				targets.add(new Target(waitGoal, "no peer ran to the end" + failedPeers, null));
			}
			return;
		}
		Figures peer = best.get().getValue();
		String peerName = best.get().getKey().title();
		double ratio = lock.getDouble("opsPerSecond") / peer.getDouble("opsPerSecond");
		targets.add(new Target(goal,
				MarkdownTable.ratio(ratio) + " of " + peerName + " ("
						+ MarkdownTable.count(lock.getDouble("opsPerSecond")) + " vs "
						+ MarkdownTable.count(peer.getDouble("opsPerSecond")) + ")" + failedPeers,
				ratio >= factor));
		String wait = maxWait ? "waitMaxMicros" : "waitP99Micros";
		targets.add(new Target(
				waitGoal, MarkdownTable.millis(lock.getDouble(wait)) + " ms vs "
						+ MarkdownTable.millis(peer.getDouble(wait)) + " ms" + failedPeers,
				lock.getDouble(wait) <= peer.getDouble(wait)));
	}

	private void waiters(List<Target> targets) {
		Figures lock = figures(Scenario.WAITERS, Implementation.REDIS_LOCK);
		if (lock == null) {
			return;
		}
		long commands = CommandCounts.readFrom(lock).total();
		targets.add(new Target("Waiters: 0 Redis commands while waiting", Long.toString(commands), commands == 0));
		double waitersCpu = lock.getDouble("waitersCpuMillis");
		double share = processCpuShare(lock);
		targets.add(new Target(
				"Waiters: no measurable CPU while waiting", "waiting threads " + Figures.decimal(waitersCpu)
						+ " ms, whole JVM " + String.format(Locale.ROOT, "%.1f", share) + "% of a core",
				waitersCpu < 1 && share < 1));
		double first = lock.getDouble("warm.firstGrantMedianMicros");
		targets.add(new Target("Waiters: release to first grant within 2 ms (median of the warm rounds)",
				MarkdownTable.millis(first) + " ms (max "
						+ MarkdownTable.millis(lock.getDouble("warm.firstGrantMaxMicros")) + ", cold "
						+ MarkdownTable.millis(lock.getDouble("cold.firstGrantMicros")) + ")",
				first <= 2000));
	}

	private void manyKeys(List<Target> targets) {
		Figures lock = figures(Scenario.MANY_KEYS, Implementation.REDIS_LOCK);
		if (lock == null) {
			return;
		}
		double retained = lock.getDouble("retainedBytesPerKey");
		double noise = lock.getDouble("noiseBytesPerKey");
		// Any per-key state is an object of 16 bytes or more: less than 1 byte per key is
		// state that does not grow with the keys
		targets.add(new Target("Many keys: 0 bytes of heap retained per key",
				MarkdownTable.bytes(retained) + " B/key (noise ±" + MarkdownTable.bytes(noise) + ")",
				retained < 1 + noise));
	}

	/**
	 * Reactive waiters have no threads to measure: their waiting must cost no command and
	 * next to no CPU of the whole JVM, with no thread parked and nothing polling.
	 */
	private void reactiveWaiters(List<Target> targets) {
		Figures lock = figures(Scenario.WAITERS, Implementation.REDIS_LOCK_REACTIVE);
		if (lock == null) {
			return;
		}
		long commands = CommandCounts.readFrom(lock).total();
		double share = processCpuShare(lock);
		targets.add(new Target("Waiters, reactive: 0 Redis commands and no measurable CPU while waiting",
				commands + " commands, whole JVM " + String.format(Locale.ROOT, "%.1f", share) + "% of a core",
				commands == 0 && share < 1));
	}

	private void lostUpdates(List<Target> targets) {
		for (Scenario scenario : List.of(Scenario.HOT_KEY, Scenario.HOT_KEY_TWO_JVMS, Scenario.FAIR_HOT_KEY,
				Scenario.FAIR_HOT_KEY_TWO_JVMS)) {
			for (Implementation implementation : List.of(Implementation.REDIS_LOCK,
					Implementation.REDIS_LOCK_REACTIVE)) {
				Figures lock = figures(scenario, implementation);
				if (lock != null) {
					long lost = lock.getLong("lostUpdates");
					String reactive = implementation.isReactive() ? ", reactive" : "";
					targets.add(new Target(scenario.title() + reactive + ": no lost update", Long.toString(lost),
							lost == 0));
				}
			}
		}
	}

	private void readWrite(List<Target> targets) {
		Figures lock = figures(Scenario.READ_WRITE, Implementation.REDIS_LOCK);
		if (lock != null) {
			long lost = lock.getLong("lostWrites");
			long overlaps = lock.getLong("overlaps");
			targets.add(new Target(Scenario.READ_WRITE.title() + ": no lost write, no reader beside a writer",
					lost + " lost, " + overlaps + " overlaps", lost == 0 && overlaps == 0));
		}
	}

	static double processCpuShare(Figures waiters) {
		return 100 * waiters.getDouble("processCpuMillis") / (waiters.getDouble("windowSeconds") * 1000);
	}

	private Optional<Map.Entry<Implementation, Figures>> bestPeer(Scenario scenario) {
		return this.results.getOrDefault(scenario, Map.of())
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().isPeer() && !entry.getValue().isFailed())
			.max(Comparator.comparingDouble((entry) -> entry.getValue().getDouble("opsPerSecond")));
	}

	/**
	 * The peers that failed in the scenario, to name next to the best one that did not:
	 * {@code "; Redisson RLock failed"}, or empty.
	 */
	private String failedPeers(Scenario scenario) {
		return this.results.getOrDefault(scenario, Map.of())
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().isPeer() && entry.getValue().isFailed())
			.map((entry) -> "; " + entry.getKey().title() + " failed")
			.collect(Collectors.joining());
	}

	/**
	 * The figures of redis-lock, or of another implementation, in a scenario it ran to
	 * the end; {@code null} if it did not run or failed (see {@link #failures}).
	 */
	private @Nullable Figures figures(Scenario scenario, Implementation implementation) {
		Figures figures = this.results.getOrDefault(scenario, Map.of()).get(implementation);
		return (figures != null && !figures.isFailed()) ? figures : null;
	}

}
