package io.github.redislock.benchmarks;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.ToDoubleFunction;

/**
 * {@code RESULTS.md}: where the figures come from, the targets, then a table per scenario
 * with each implementation's ratio to the best one or to the raw floor. An implementation
 * that failed has a row that says what went wrong, and is left out of the ratios.
 */
final class ResultsReport {

	/**
	 * What the hot-key tables' columns on the {@link LockTimeline} mean, told once in the
	 * first hot key's description.
	 */
	private static final String TIMELINE = "Where the lock's time goes comes from two System.nanoTime() readings "
			+ "per measured acquisition, one when the lock is granted and one when the critical section has ended, "
			+ "before the release; the sections of every JVM are merged in the order they were granted (nanoTime "
			+ "is the machine's monotonic clock, the same in both JVMs). Critical section is the mean time from "
			+ "grant to the end of the GET and SET; section vs alone compares it with the critical section alone "
			+ "on one thread, with no lock and no other thread sending commands. A gap runs from the end of one "
			+ "section to the grant of the next: the time the lock spends handing itself over, its release and "
			+ "the next grant, with no critical section running. A hand-over gap goes to a holder in the same "
			+ "JVM, a switch gap (two JVMs only) to one in the other JVM; switches are per 1,000 acquisitions. "
			+ "Lock busy is the share of the measured window spent inside critical sections: ops/s is lock busy "
			+ "over the critical section's mean time, so what is left is in the gaps. For the critical section "
			+ "alone, the gaps are the loop's own overhead. Overlaps are sections granted before an earlier one "
			+ "had ended, which a lock must never let happen: they must be 0, as must lost updates.";

	private final Environment environment;

	private final Map<Scenario, Map<Implementation, Figures>> results;

	private final Map<Scenario, MarkdownTable> tables = new EnumMap<>(Scenario.class);

	ResultsReport(Environment environment, Map<Scenario, Map<Implementation, Figures>> results) {
		this.environment = environment;
		this.results = results;
	}

	String markdown() {
		BenchmarkSettings settings = this.environment.settings();
		StringBuilder text = new StringBuilder();
		text.append("# Benchmark results\n\n");
		text.append("Written by the `benchmarks` module (see its README to run it again); do not edit by hand.\n\n");
		text.append("- Date: ").append(this.environment.date()).append('\n');
		text.append("- Java: ").append(this.environment.java()).append('\n');
		text.append("- Redis: ").append(this.environment.redis()).append(", on loopback, no persistence\n");
		text.append("- Cores: ")
			.append(this.environment.cores())
			.append(" (")
			.append(this.environment.machine())
			.append(")\n");
		text.append("- redis-lock: commit ").append(this.environment.revision()).append('\n');
		text.append("- Libraries: ").append(this.environment.libraries()).append('\n');
		text.append("- Runs: each implementation in a fresh JVM per scenario (-Xmx256m), warm-up ")
			.append(seconds(settings.warmup().toMillis()))
			.append(" (")
			.append(seconds(settings.hotKeyWarmup().toMillis()))
			.append(" on a hot key), measured ")
			.append(seconds(settings.duration().toMillis()))
			.append("; peers in their default configuration\n\n");
		MarkdownTable targets = new Targets(this.results).table();
		if (!targets.isEmpty()) {
			text.append("## Targets\n\n").append(targets.markdown()).append('\n');
		}
		section(text, Scenario.UNCONTENDED, uncontended(), "One thread locks and releases a new key each time. "
				+ "The three ratios compare with the raw floor: time per operation, Redis CPU per operation and all "
				+ "commands per operation. "
				+ "Round trips are the commands clients sent, counted exactly with MONITOR over 500 more operations; "
				+ "all commands include those run inside Lua scripts (INFO commandstats over the measured run). "
				+ "CPU is that of the client JVM and of redis-server over the measured run: unlike ops/s and latency it "
				+ "hardly moves when other work competes for the cores.");
		section(text, Scenario.HOT_KEY, hotKey(Scenario.HOT_KEY), settings.hotKeyThreads()
				+ " threads on one key; under the lock each reads a Redis counter with GET and writes it back "
				+ "with SET. Wait is from the lock request to its grant. Commands leave out the critical section's GET and "
				+ "SET; CPU is that of the lock client's JVMs (critical section included) and of redis-server. "
				+ "The rows marked limit are no locks to compare with but what none could beat on this machine: "
				+ "a JVM-local fair and unfair ReentrantLock around the same GET and SET, and the critical section "
				+ "alone on one thread with no lock. Vs best compares the locks with the best of them; vs limit "
				+ "compares every row with the local fair lock, the limit of a lock that serves waiters in order. "
				+ "The reactive rows (redis-lock ReactiveLockTemplate, Redisson RLockReactive) run as many reactive "
				+ "chains as the others have threads, each sending the same GET and SET without blocking and taking "
				+ "the lock again once released; their ops/thread are per chain. " + TIMELINE);
		section(text, Scenario.HOT_KEY_TWO_JVMS, hotKey(Scenario.HOT_KEY_TWO_JVMS), "The same, with 2 JVMs x "
				+ (settings.hotKeyThreads() / 2) + " threads. A local lock cannot span "
				+ "two JVMs: vs limit compares with the critical section alone on one thread; the reactive rows run "
				+ (settings.hotKeyThreads() / 2) + " chains in each JVM. A switch gap hands the lock to the "
				+ "other JVM, a hand-over gap to a thread of the same JVM.");
		section(text, Scenario.FAIR_HOT_KEY, hotKey(Scenario.FAIR_HOT_KEY), "One hot key again, "
				+ settings.hotKeyThreads() + " threads around the same GET and SET, under a "
				+ "fair lock: waiters are granted in the order they asked, so that every thread should get "
				+ "about as many operations. Spread is the standard deviation of operations per thread over "
				+ "their mean. The limits are those of the first hot key; vs limit compares with the local fair "
				+ "lock. The critical section, gap and overlap columns are those of the first hot key."
				+ skipped(Scenario.FAIR_HOT_KEY));
		section(text, Scenario.FAIR_HOT_KEY_TWO_JVMS, hotKey(Scenario.FAIR_HOT_KEY_TWO_JVMS),
				"The same, with 2 JVMs x " + (settings.hotKeyThreads() / 2) + " threads; vs limit compares with the "
						+ "critical section alone on one thread." + skipped(Scenario.FAIR_HOT_KEY_TWO_JVMS));
		section(text, Scenario.READ_WRITE, readWrite(), settings.hotKeyThreads() + " threads on one read/write lock; "
				+ "each acquisition is a read (a GET of the counter under the read lock) or, one time in "
				+ ReadWriteRun.WRITE_ONE_IN + " as drawn from a random sequence seeded per thread, a write (GET and "
				+ "SET of the counter under the write lock). Lost writes are writes less the final counter; overlaps "
				+ "are readers that found a writer inside, or writers that found another holder. Write waits show "
				+ "whether writers starve behind the readers. Commands leave out the critical sections' GET and SET."
				+ skipped(Scenario.READ_WRITE));
		section(text, Scenario.WAITERS, waiters(), settings.waiters() + " threads wait on a key that another JVM "
				+ "holds, then the holder releases and every waiter takes and releases the lock in turn: a round. "
				+ "The first round runs cold, after uncontended locks only: CPU and Redis commands are measured over "
				+ seconds(settings.waitWindow().toMillis()) + " of its waiting, and its grant times are the cold "
				+ "columns. Rounds then run unmeasured for the warm-up time, so that the wait and wake paths are "
				+ "compiled, and the other grant columns are the median and max over " + settings.rounds()
				+ " more rounds. Grant times are wall-clock, from the holder's JVM to the waiters'. The reactive rows "
				+ "wait with as many reactive chains and no waiting thread (–): what their waiting costs is in the "
				+ "JVM's CPU; their holder takes the key with the same library's blocking API.");
		section(text, Scenario.MANY_KEYS, manyKeys(),
				settings.keyThreads() + " threads lock and release " + MarkdownTable.count(settings.keys())
						+ " distinct keys once each. Heap is measured after full collections with the client still "
						+ "open, after each half of the keys: retained per key is the growth over the second half, "
						+ "noise the spread of three readings.");
		manyHeld(text, settings);
		section(text, Scenario.PERMITS, permits(), "2 JVMs x " + settings.hotKeyThreads() + " threads share "
				+ PermitsRun.LIMIT + " permits of one name. Each takes a permit, counts itself in with an INCR of a "
				+ "Redis counter, holds the permit until " + PermitsRun.HOLD.toMillis() + " ms after its grant, counts "
				+ "itself out with a DECR and gives the permit back, at once taking the next. Peak holders is the "
				+ "highest count an INCR answered, warm-up included: the holders of both JVMs at once, which must "
				+ "never exceed " + PermitsRun.LIMIT + " (the scenario fails if it does). Permits busy is the time "
				+ "permits were held over the measured window, at most " + PermitsRun.LIMIT + ": with the hold "
				+ "fixed, what ops/s lacks of the permits' ceiling is in the hand-overs. Hold is the mean time from a grant to "
				+ "the end of its DECR: " + PermitsRun.HOLD.toMillis() + " ms and the checker's commands, longer on a "
				+ "busy machine, where the threads wake late. Wait is from the request to "
				+ "the grant. redis-lock takes LockRequest.permit(key, " + PermitsRun.LIMIT + ") with its default "
				+ "lease, renewed by the watchdog; Redisson RPermitExpirableSemaphore (trySetPermits once) a permit "
				+ "with a 30 s lease, given back by its id; Redisson RSemaphore (trySetPermits once) acquires and "
				+ "releases a count with no lease or owner. Commands leave out the checker's INCR and DECR; CPU is "
				+ "that of both client JVMs (checker included) and of redis-server." + skipped(Scenario.PERMITS));
		return text.toString();
	}

	private void manyHeld(StringBuilder text, BenchmarkSettings settings) {
		ManyHeldTable manyHeld = new ManyHeldTable(this.results.getOrDefault(Scenario.MANY_HELD, Map.of()));
		section(text, Scenario.MANY_HELD, manyHeld.table(), ManyHeldTable.description(settings));
		List<String> busiest = manyHeld.busiestThreads();
		if (!busiest.isEmpty()) {
			text.append("Client CPU by thread over the window with the most locks held:\n\n");
			busiest.forEach((line) -> text.append("- ").append(line).append('\n'));
			text.append('\n');
		}
	}

	private void section(StringBuilder text, Scenario scenario, MarkdownTable table, String description) {
		if (!table.isEmpty()) {
			this.tables.put(scenario, table);
			text.append("## ").append(scenario.title()).append("\n\n").append(description).append("\n\n");
			text.append(table.markdown()).append('\n');
			if (scenario == Scenario.UNCONTENDED) {
				text.append("Client CPU by thread over the measured run, after a warm-up that lasts until the JIT "
						+ "compilers have settled (at most 4 times the configured warm-up):\n\n");
				succeeded(scenario).forEach((implementation, run) -> text.append("- ")
					.append(implementation.title())
					.append(": ")
					.append(run.get("busiestThreads"))
					.append(" (warm-up ")
					.append(Figures.decimal(run.getDouble("warmupSeconds")))
					.append(" s)\n"));
				text.append('\n');
			}
		}
	}

	/** The scenario tables {@link #markdown()} reported, for {@link ResultsCharts}. */
	Map<Scenario, MarkdownTable> tables() {
		return this.tables;
	}

	private MarkdownTable uncontended() {
		MarkdownTable table = new MarkdownTable("Implementation", "ops/s", "time per op vs floor", "Redis CPU vs floor",
				"commands vs floor", "p50 µs", "p99 µs", "client CPU µs/op", "Redis CPU µs/op", "round trips/op",
				"all commands/op", "commands per op");
		Figures floor = succeeded(Scenario.UNCONTENDED).get(Implementation.RAW_FLOOR);
		rows(table, Scenario.UNCONTENDED, (implementation, run) -> {
			CommandCounts commands = CommandCounts.readFrom(run);
			long operations = run.getLong("operations");
			table.row(implementation.title(), MarkdownTable.count(run.getDouble("opsPerSecond")),
					(floor != null)
							? MarkdownTable.ratio(floor.getDouble("opsPerSecond") / run.getDouble("opsPerSecond")) : "",
					(floor != null) ? MarkdownTable.ratio(redisCpuPerOperation(run) / redisCpuPerOperation(floor)) : "",
					(floor != null) ? MarkdownTable.ratio(commandsPerOperation(run) / commandsPerOperation(floor)) : "",
					MarkdownTable.micros(run.getDouble("p50Micros")), MarkdownTable.micros(run.getDouble("p99Micros")),
					MarkdownTable.micros(run.getDouble("clientCpuMicros") / operations),
					MarkdownTable.micros(redisCpuPerOperation(run)),
					Figures.decimal((double) run.getLong("probe.clientCommands") / run.getLong("probe.operations")),
					Figures.decimal(commandsPerOperation(run)), commands.perOperation(operations));
		});
		return table;
	}

	/** Redis CPU µs per lock + release in the uncontended scenario. */
	static double redisCpuPerOperation(Figures uncontended) {
		return uncontended.getDouble("redisCpuMicros") / uncontended.getLong("operations");
	}

	/**
	 * Commands Redis ran per lock + release in the uncontended scenario, those run inside
	 * scripts included.
	 */
	static double commandsPerOperation(Figures uncontended) {
		return (double) CommandCounts.readFrom(uncontended).total() / uncontended.getLong("operations");
	}

	/**
	 * A sentence naming the implementations left out of a scenario for want of its kind
	 * of lock, or an empty string.
	 */
	private static String skipped(Scenario scenario) {
		List<String> titles = scenario.skipped().stream().map(Implementation::title).toList();
		if (titles.isEmpty()) {
			return "";
		}
		return " " + String.join(", ", titles) + ((titles.size() > 1) ? " have" : " has") + " no "
				+ scenario.kind().description() + " and " + ((titles.size() > 1) ? "are" : "is") + " skipped.";
	}

	private MarkdownTable hotKey(Scenario scenario) {
		boolean twoJvms = isTwoJvms(scenario);
		List<String> header = new ArrayList<>(List.of("Implementation", "ops/s", "vs best", "vs limit"));
		if (twoJvms) {
			header.add("ops per JVM");
		}
		header.addAll(List.of("lost updates", "overlaps", "wait p50 ms", "p99 ms", "max ms", "critical section µs",
				"section vs alone", "hand-over gap µs mean / p50 / p99", "switch gap µs mean / p50 / p99",
				"switches per 1,000 acq", "lock busy", "ops/thread min–max", "spread", "client CPU µs/acq",
				"Redis CPU µs/acq", "round trips/acq", "all commands/acq", "commands per acquisition"));
		MarkdownTable table = new MarkdownTable(header.toArray(String[]::new));
		double best = best(succeeded(scenario), (run) -> run.getDouble("opsPerSecond"));
		Figures limit = succeeded(scenario).get(limitOf(scenario));
		Figures alone = succeeded(scenario).get(Implementation.LIMIT_SINGLE_THREAD);
		rows(table, scenario, (implementation, run) -> {
			CommandCounts commands = CommandCounts.readFrom(run);
			long operations = Math.max(1, run.getLong("operations"));
			double opsPerSecond = run.getDouble("opsPerSecond");
			List<String> cells = new ArrayList<>(List.of(implementation.title(scenario.kind()),
					MarkdownTable.count(opsPerSecond),
					implementation.isLimit() ? "" : MarkdownTable.ratio(opsPerSecond / best),
					(limit != null) ? MarkdownTable.ratio(opsPerSecond / limit.getDouble("opsPerSecond")) : ""));
			if (twoJvms) {
				cells.add(run.get("perJvm"));
			}
			cells.addAll(List.of(run.get("lostUpdates"), run.get("overlaps"),
					MarkdownTable.millis(run.getDouble("waitP50Micros")),
					MarkdownTable.millis(run.getDouble("waitP99Micros")),
					MarkdownTable.millis(run.getDouble("waitMaxMicros")),
					MarkdownTable.micros(run.getDouble("sectionMeanMicros")),
					(alone != null) ? MarkdownTable
						.ratio(run.getDouble("sectionMeanMicros") / alone.getDouble("sectionMeanMicros")) : "",
					gaps(run, "handOverGap"), gaps(run, "switchGap"),
					Figures.decimal(run.getDouble("switchesPerThousand")), percent(run.getDouble("lockBusyShare")),
					run.get("perThreadMin") + "–" + run.get("perThreadMax"), percent(run.getDouble("perThreadSpread")),
					MarkdownTable.micros(run.getDouble("clientCpuMicros") / operations),
					MarkdownTable.micros(run.getDouble("redisCpuMicros") / operations),
					Figures.decimal(commands.roundTrips(CommandCounts.readShares(run), implementation.directCommands())
							/ operations),
					Figures.decimal((double) commands.total() / operations), commands.perOperation(operations)));
			table.row(cells.toArray(String[]::new));
		});
		return table;
	}

	/**
	 * The mean, p50 and p99 of one kind of gap between critical sections on the
	 * {@link LockTimeline}, in µs, or – when there was none of that kind.
	 */
	private static String gaps(Figures run, String prefix) {
		if (!run.has(prefix + "MeanMicros")) {
			return "–";
		}
		return MarkdownTable.micros(run.getDouble(prefix + "MeanMicros")) + " / "
				+ MarkdownTable.micros(run.getDouble(prefix + "P50Micros")) + " / "
				+ MarkdownTable.micros(run.getDouble(prefix + "P99Micros"));
	}

	static boolean isTwoJvms(Scenario scenario) {
		return scenario == Scenario.HOT_KEY_TWO_JVMS || scenario == Scenario.FAIR_HOT_KEY_TWO_JVMS;
	}

	/**
	 * The limit a hot-key scenario's "vs limit" compares with: within one JVM, the local
	 * fair lock, which serves waiters in order as a distributed lock does; across two
	 * JVMs, where no local lock reaches, the critical section alone.
	 */
	static Implementation limitOf(Scenario scenario) {
		return isTwoJvms(scenario) ? Implementation.LIMIT_SINGLE_THREAD : Implementation.LIMIT_LOCAL_FAIR;
	}

	private MarkdownTable readWrite() {
		MarkdownTable table = new MarkdownTable("Implementation", "ops/s", "vs best", "reads/s", "writes/s",
				"lost writes", "overlaps", "read wait p50 ms", "p99 ms", "write wait p50 ms", "p99 ms", "max ms",
				"client CPU µs/acq", "Redis CPU µs/acq", "round trips/acq", "all commands/acq",
				"commands per acquisition");
		double best = best(succeeded(Scenario.READ_WRITE), (run) -> run.getDouble("opsPerSecond"));
		rows(table, Scenario.READ_WRITE, (implementation, run) -> {
			CommandCounts commands = CommandCounts.readFrom(run);
			long operations = Math.max(1, run.getLong("operations"));
			table.row(implementation.title(Scenario.READ_WRITE.kind()),
					MarkdownTable.count(run.getDouble("opsPerSecond")),
					MarkdownTable.ratio(run.getDouble("opsPerSecond") / best),
					MarkdownTable.count(run.getDouble("readsPerSecond")),
					MarkdownTable.count(run.getDouble("writesPerSecond")), run.get("lostWrites"), run.get("overlaps"),
					MarkdownTable.millis(run.getDouble("readWaitP50Micros")),
					MarkdownTable.millis(run.getDouble("readWaitP99Micros")),
					MarkdownTable.millis(run.getDouble("writeWaitP50Micros")),
					MarkdownTable.millis(run.getDouble("writeWaitP99Micros")),
					MarkdownTable.millis(run.getDouble("writeWaitMaxMicros")),
					MarkdownTable.micros(run.getDouble("clientCpuMicros") / operations),
					MarkdownTable.micros(run.getDouble("redisCpuMicros") / operations),
					Figures.decimal(commands.roundTrips(CommandCounts.readShares(run), implementation.directCommands())
							/ operations),
					Figures.decimal((double) commands.total() / operations), commands.perOperation(operations));
		});
		return table;
	}

	private MarkdownTable permits() {
		MarkdownTable table = new MarkdownTable("Implementation", "ops/s", "vs best", "ops per JVM", "peak holders",
				"permits busy", "hold ms", "wait p50 ms", "p99 ms", "max ms", "ops/thread min–max", "spread",
				"client CPU µs/acq", "Redis CPU µs/acq", "round trips/acq", "all commands/acq",
				"commands per acquisition");
		double best = best(succeeded(Scenario.PERMITS), (run) -> run.getDouble("opsPerSecond"));
		rows(table, Scenario.PERMITS, (implementation, run) -> {
			CommandCounts commands = CommandCounts.readFrom(run);
			long operations = Math.max(1, run.getLong("operations"));
			table.row(implementation.title(Scenario.PERMITS.kind()), MarkdownTable.count(run.getDouble("opsPerSecond")),
					MarkdownTable.ratio(run.getDouble("opsPerSecond") / best), run.get("perJvm"),
					run.get("peakHolders") + " of " + PermitsRun.LIMIT, Figures.decimal(run.getDouble("permitsBusy")),
					MarkdownTable.millis(run.getDouble("holdMeanMicros")),
					MarkdownTable.millis(run.getDouble("waitP50Micros")),
					MarkdownTable.millis(run.getDouble("waitP99Micros")),
					MarkdownTable.millis(run.getDouble("waitMaxMicros")),
					run.get("perThreadMin") + "–" + run.get("perThreadMax"), percent(run.getDouble("perThreadSpread")),
					MarkdownTable.micros(run.getDouble("clientCpuMicros") / operations),
					MarkdownTable.micros(run.getDouble("redisCpuMicros") / operations),
					Figures.decimal(commands.roundTrips(CommandCounts.readShares(run), implementation.directCommands())
							/ operations),
					Figures.decimal((double) commands.total() / operations), commands.perOperation(operations));
		});
		return table;
	}

	private MarkdownTable waiters() {
		MarkdownTable table = new MarkdownTable("Implementation", "CPU of waiting threads ms",
				"CPU of the JVM ms (% of a core)", "busiest other threads", "Redis commands while waiting",
				"release → first grant ms, median", "max", "vs best", "release → last grant ms, median", "max",
				"cold: first grant ms", "cold: last grant ms", "granted while held");
		double best = succeeded(Scenario.WAITERS).values()
			.stream()
			.mapToDouble((run) -> run.getDouble("warm.firstGrantMedianMicros"))
			.min()
			.orElse(1);
		rows(table, Scenario.WAITERS, (implementation, run) -> {
			CommandCounts commands = CommandCounts.readFrom(run);
			table.row(implementation.title(),
					run.has("waitersCpuMillis") ? Figures.decimal(run.getDouble("waitersCpuMillis")) : "–",
					Figures.decimal(run.getDouble("processCpuMillis")) + " ("
							+ Figures.decimal(Targets.processCpuShare(run)) + "%)",
					run.get("busiestThreads"),
					(commands.total() == 0) ? "0" : commands.total() + ": " + commands.absolute(),
					MarkdownTable.millis(run.getDouble("warm.firstGrantMedianMicros")),
					MarkdownTable.millis(run.getDouble("warm.firstGrantMaxMicros")),
					MarkdownTable.ratio(run.getDouble("warm.firstGrantMedianMicros") / Math.max(1, best)),
					MarkdownTable.millis(run.getDouble("warm.lastGrantMedianMicros")),
					MarkdownTable.millis(run.getDouble("warm.lastGrantMaxMicros")),
					MarkdownTable.millis(run.getDouble("cold.firstGrantMicros")),
					MarkdownTable.millis(run.getDouble("cold.lastGrantMicros")), run.get("grantedWhileHeld"));
		});
		return table;
	}

	private MarkdownTable manyKeys() {
		MarkdownTable table = new MarkdownTable("Implementation", "ops/s", "vs best", "heap retained B/key",
				"noise ± B/key", "Redis keys left per key");
		double best = best(succeeded(Scenario.MANY_KEYS), (run) -> run.getDouble("opsPerSecond"));
		rows(table, Scenario.MANY_KEYS,
				(implementation, run) -> table.row(implementation.title(),
						MarkdownTable.count(run.getDouble("opsPerSecond")),
						MarkdownTable.ratio(run.getDouble("opsPerSecond") / best),
						MarkdownTable.bytes(run.getDouble("retainedBytesPerKey")),
						MarkdownTable.bytes(run.getDouble("noiseBytesPerKey")),
						Figures.decimal(run.getDouble("redisKeysLeftPerKey"))));
		return table;
	}

	/**
	 * A row per implementation that ran the scenario: the one the builder makes from its
	 * figures, or what went wrong when it failed.
	 */
	private void rows(MarkdownTable table, Scenario scenario, BiConsumer<Implementation, Figures> row) {
		this.results.getOrDefault(scenario, Map.of()).forEach((implementation, run) -> {
			if (run.isFailed()) {
				table.failedRow(implementation.title(scenario.kind()), run);
			}
			else {
				row.accept(implementation, run);
			}
		});
	}

	/** The figures of the implementations that ran the scenario to the end. */
	private Map<Implementation, Figures> succeeded(Scenario scenario) {
		Map<Implementation, Figures> succeeded = new EnumMap<>(Implementation.class);
		this.results.getOrDefault(scenario, Map.of()).forEach((implementation, run) -> {
			if (!run.isFailed()) {
				succeeded.put(implementation, run);
			}
		});
		return succeeded;
	}

	/** The best score among the locks, leaving out the limits, which are no peers. */
	private static double best(Map<Implementation, Figures> figures, ToDoubleFunction<Figures> score) {
		return figures.entrySet()
			.stream()
			.filter((entry) -> !entry.getKey().isLimit())
			.mapToDouble((entry) -> score.applyAsDouble(entry.getValue()))
			.max()
			.orElse(1);
	}

	/** A share as a percentage: {@code 12.5%}. */
	private static String percent(double share) {
		return String.format(Locale.ROOT, "%.1f%%", share * 100);
	}

	private static String seconds(long millis) {
		return Figures.decimal(millis / 1000.0) + " s";
	}

}
