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

	/** What the table shows and how it was measured, for the head of its section. */
	static String description(BenchmarkSettings settings) {
		return "One JVM takes each number of locks, on a client of its own and " + HeldLocks.THREADS + " threads, "
				+ "with no fixed lease so that its watchdog renews them (redis-lock: a LockRequest without lease time; "
				+ "Redisson: RLock without leaseTime, renewed every third of its lockWatchdogTimeout), holds them for "
				+ Figures.decimal(settings.heldDuration().toMillis() / 1000.0) + " s while measured, then releases "
				+ "them all; taking them is not measured. Figures per interval divide by the renew intervals the "
				+ "window lasted: each lock is renewed about once per interval. Round trips are the commands the "
				+ "client sent in the window, pipelined or not, from INFO commandstats with the share of each command "
				+ "that clients sent as a MONITOR probe of the first renewals saw (Redisson's connection pings "
				+ "included); all commands include those run inside scripts. Client writes are the write system calls "
				+ "of the whole client JVM over the window (Linux's /proc/self/io): each sends once on the network, "
				+ "however many commands it carries, so they count the round trips of a client that pipelines. CPU is that of the whole client JVM "
				+ "and of redis-server over the window, their idle work included, which weighs most when few locks "
				+ "are held. Locks lost are those whose holder was told so or whose release found them gone in "
				+ "Redis; loss notices, those whose holder was told before releasing (Redisson tells its holder "
				+ "nothing: –). Heap per held lock is the used heap after full collections with the locks held, "
				+ "less that before they were taken, over their number; it includes about 20 bytes of the "
				+ "benchmark's own per lock (an array slot and the object that wraps the handle). redis-lock "
				+ "DistributedLockRegistry renews through the same watchdog as redis-lock and is left out. Spring "
				+ "Integration's RedisLockRegistry has no watchdog in its default configuration (it renews only when "
				+ "given a renewal TaskScheduler), and the floors have a fixed lease.";
	}

	MarkdownTable table() {
		MarkdownTable table = new MarkdownTable("Implementation", "held locks", "taken in s (not measured)",
				"round trips per interval", "round trips per held lock per interval", "client writes per interval",
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
						Figures.decimal(window.acquireSeconds()), amount(window.roundTripsPerInterval()),
						Figures.decimal(window.roundTripsPerInterval() / window.count()),
						amount(window.clientWritesPerInterval()), Figures.decimal(window.commandsPerLockPerInterval()),
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

	/** A figure that may be small or in the thousands: {@code 13.50} or {@code 9,996}. */
	private static String amount(double value) {
		if (Double.isNaN(value)) {
			return "–";
		}
		return (value < 100) ? Figures.decimal(value) : MarkdownTable.count(value);
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
