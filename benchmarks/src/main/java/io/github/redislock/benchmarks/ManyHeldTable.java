package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The many-held section of the report: a row per implementation and count of locks, the
 * implementations without a watchdog named in rows of their own, and where the client's
 * CPU went while it held the most locks.
 */
final class ManyHeldTable {

	private final Map<Implementation, Figures> results;

	/**
	 * @param results the figures of every implementation that ran the scenario, failed
	 * runs included
	 */
	ManyHeldTable(Map<Implementation, Figures> results) {
		this.results = results;
	}

	MarkdownTable table() {
		MarkdownTable table = new MarkdownTable("Implementation", "held locks", "taken in s (not measured)",
				"round trips per interval", "round trips per held lock per interval",
				"all commands per held lock per interval", "client CPU µs per held lock per interval",
				"Redis CPU µs per held lock per interval", "locks lost", "loss notices", "heap B per held lock",
				"noise ± B", "commands per held lock per interval");
		this.results.forEach((implementation, run) -> {
			if (run.isFailed()) {
				table.failedRow(implementation.title(), run);
				return;
			}
			boolean notices = Boolean.parseBoolean(run.get("noticesLoss"));
			for (HeldWindow window : HeldWindow.of(implementation, run)) {
				table.row(implementation.title(), MarkdownTable.count(window.count()),
						Figures.decimal(window.acquireSeconds()), Figures.decimal(window.roundTripsPerInterval()),
						Figures.decimal(window.roundTripsPerInterval() / window.count()),
						Figures.decimal(window.commandsPerLockPerInterval()),
						MarkdownTable.micros(window.clientCpuMicrosPerLockPerInterval()),
						MarkdownTable.micros(window.redisCpuMicrosPerLockPerInterval()), Long.toString(window.lost()),
						notices ? Long.toString(window.lossNoticed()) : "–",
						MarkdownTable.bytes(window.heapBytesPerLock()),
						MarkdownTable.bytes(window.heapNoiseBytesPerLock()), window.commandsPerLock());
			}
		});
		if (!table.isEmpty()) {
			for (Implementation implementation : Scenario.MANY_HELD.skipped()) {
				table.noteRow(implementation.title(), "skipped: no watchdog");
			}
		}
		return table;
	}

	/**
	 * Where each implementation's CPU went over the window in which it held the most
	 * locks: lines of a list, or none.
	 */
	List<String> busiestThreads() {
		List<String> lines = new ArrayList<>();
		this.results.forEach((implementation, run) -> {
			if (!run.isFailed()) {
				List<HeldWindow> windows = HeldWindow.of(implementation, run);
				if (!windows.isEmpty()) {
					HeldWindow largest = windows.get(windows.size() - 1);
					lines.add(implementation.title() + ", " + MarkdownTable.count(largest.count()) + " locks: "
							+ largest.busiestThreads());
				}
			}
		});
		return lines;
	}

}
