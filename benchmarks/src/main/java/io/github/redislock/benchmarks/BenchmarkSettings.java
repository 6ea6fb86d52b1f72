package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How long and how hard the scenarios run, read from {@code bench.*} system properties by
 * the launcher and handed to each scenario process as {@code name=value} arguments.
 *
 * @param warmup how long each implementation runs before it is measured
 * ({@code bench.warmup}, default {@code 2s})
 * @param hotKeyWarmup how long each implementation runs on the hot key before it is
 * measured, in the hot-key and read/write scenarios ({@code bench.hotKeyWarmup}, default
 * {@code 10s}): longer than {@code bench.warmup}, as the lock's contended paths (and,
 * with two JVMs, two JVMs' worth of them) keep the JIT compiling for several seconds on 2
 * cores, which measured a third of the two-JVM throughput when they ran into the window
 * @param duration how long each implementation is measured in the uncontended and hot-key
 * scenarios ({@code bench.duration}, default {@code 5s})
 * @param waitWindow how long the waiters wait on a held key while measured
 * ({@code bench.wait}, default {@code 5s})
 * @param waiters number of waiting threads ({@code bench.waiters}, default 50)
 * @param rounds measured rounds of the waiters scenario, after its cold round and warm-up
 * rounds ({@code bench.rounds}, default 10)
 * @param hotKeyThreads threads on the hot key in one JVM ({@code bench.hotKeyThreads},
 * default 8); the two-JVM scenario runs half of them in each JVM
 * @param keys distinct keys of the many-keys scenario ({@code bench.keys}, default
 * 100000)
 * @param keyThreads threads of the many-keys scenario ({@code bench.keyThreads}, default
 * 4)
 * @param heldCounts how many locks the many-held scenario holds at once, one measurement
 * per count ({@code bench.heldCounts}, default {@code 1000,10000,100000})
 * @param heldDuration how long each count of locks is held while measured
 * ({@code bench.heldDuration}, default {@code 20s}: two renew intervals)
 * @param jfr whether each scenario process records a JFR profile into
 * {@code benchmarks/target/jfr} ({@code bench.jfr}, default {@code false})
 */
record BenchmarkSettings(Duration warmup, Duration hotKeyWarmup, Duration duration, Duration waitWindow, int waiters,
		int rounds, int hotKeyThreads, int keys, int keyThreads, List<Integer> heldCounts, Duration heldDuration,
		boolean jfr) {

	static BenchmarkSettings fromSystemProperties() {
		return fromMap(Map.of()).overriddenBy(System::getProperty);
	}

	/** Settings from the arguments a scenario process was given. */
	static BenchmarkSettings fromArguments(List<String> arguments) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String argument : arguments) {
			int equals = argument.indexOf('=');
			values.put(argument.substring(0, equals), argument.substring(equals + 1));
		}
		return fromMap(values);
	}

	private static BenchmarkSettings fromMap(Map<String, String> values) {
		return new BenchmarkSettings(duration(values.getOrDefault("bench.warmup", "2s")),
				duration(values.getOrDefault("bench.hotKeyWarmup", "10s")),
				duration(values.getOrDefault("bench.duration", "5s")),
				duration(values.getOrDefault("bench.wait", "5s")),
				Integer.parseInt(values.getOrDefault("bench.waiters", "50")),
				Integer.parseInt(values.getOrDefault("bench.rounds", "10")),
				Integer.parseInt(values.getOrDefault("bench.hotKeyThreads", "8")),
				Integer.parseInt(values.getOrDefault("bench.keys", "100000")),
				Integer.parseInt(values.getOrDefault("bench.keyThreads", "4")),
				counts(values.getOrDefault("bench.heldCounts", "1000,10000,100000")),
				duration(values.getOrDefault("bench.heldDuration", "20s")),
				Boolean.parseBoolean(values.getOrDefault("bench.jfr", "false")));
	}

	private BenchmarkSettings overriddenBy(java.util.function.UnaryOperator<String> properties) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String argument : toArguments()) {
			String name = argument.substring(0, argument.indexOf('='));
			String value = properties.apply(name);
			values.put(name, (value != null) ? value : argument.substring(name.length() + 1));
		}
		return fromMap(values);
	}

	/** The settings as {@code name=value} arguments for a scenario process. */
	List<String> toArguments() {
		return Arrays.asList("bench.warmup=" + this.warmup.toMillis() + "ms",
				"bench.hotKeyWarmup=" + this.hotKeyWarmup.toMillis() + "ms",
				"bench.duration=" + this.duration.toMillis() + "ms", "bench.wait=" + this.waitWindow.toMillis() + "ms",
				"bench.waiters=" + this.waiters, "bench.rounds=" + this.rounds,
				"bench.hotKeyThreads=" + this.hotKeyThreads, "bench.keys=" + this.keys,
				"bench.keyThreads=" + this.keyThreads,
				"bench.heldCounts=" + String.join(",", this.heldCounts.stream().map(String::valueOf).toList()),
				"bench.heldDuration=" + this.heldDuration.toMillis() + "ms", "bench.jfr=" + this.jfr);
	}

	/** Parse {@code 1000,10000}: positive counts, in the order given. */
	static List<Integer> counts(String text) {
		List<Integer> counts = Arrays.stream(text.split(",")).map(String::trim).map(Integer::valueOf).toList();
		if (counts.isEmpty() || counts.stream().anyMatch((count) -> count <= 0)) {
			throw new IllegalArgumentException("Expected positive counts such as 1000,10000 but got '" + text + "'");
		}
		return counts;
	}

	/** Parse {@code 500ms}, {@code 5s} or {@code 2m}. */
	static Duration duration(String text) {
		String value = text.trim();
		if (value.endsWith("ms")) {
			return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
		}
		if (value.endsWith("s")) {
			return Duration.ofMillis(Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 1000));
		}
		if (value.endsWith("m")) {
			return Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)) * 60);
		}
		throw new IllegalArgumentException("Expected a duration such as 500ms, 5s or 2m but got '" + text + "'");
	}

}
