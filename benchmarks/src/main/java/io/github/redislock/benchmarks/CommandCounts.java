package io.github.redislock.benchmarks;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.redislock.test.RedisCli;

/**
 * Calls per Redis command between a {@code CONFIG RESETSTAT} and an
 * {@code INFO commandstats}. Redis counts the commands a Lua script runs as well as the
 * script call itself, so the figures separate <em>round trips</em>, the commands clients
 * sent, from commands run inside scripts, with the help of a short {@link MonitorProbe}
 * of the same workload.
 *
 * @param calls calls per lower-case command name, such as {@code evalsha} or
 * {@code client|setinfo}
 */
record CommandCounts(Map<String, Long> calls) {

	/** Commands a script cannot run: every call is a client's round trip. */
	private static final Set<String> CLIENT_ONLY = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall",
			"fcall_ro", "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe", "ping",
			"hello", "auth", "select", "readonly", "multi", "exec", "discard", "watch", "unwatch", "quit", "reset");

	/** What the harness itself sends to read the counts. */
	private static final Set<String> HARNESS = Set.of("info", "config|resetstat");

	static void reset(RedisCli cli) {
		cli.command("CONFIG", "RESETSTAT");
	}

	/** Read the counts since the last reset, without the harness's own commands. */
	static CommandCounts read(RedisCli cli) {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : cli.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				int start = line.indexOf("calls=") + "calls=".length();
				long count = Long.parseLong(line.substring(start, line.indexOf(',', start)));
				if (!HARNESS.contains(name)) {
					calls.put(name, count);
				}
			}
		}
		return new CommandCounts(calls);
	}

	/** The counts less commands the scenario sent itself, such as its counter updates. */
	CommandCounts minus(String name, long count) {
		Map<String, Long> result = new TreeMap<>(this.calls);
		long left = result.getOrDefault(name, 0L) - count;
		if (left > 0) {
			result.put(name, left);
		}
		else {
			result.remove(name);
		}
		return new CommandCounts(result);
	}

	/**
	 * The counts without a command at all: one only the scenario sends, whose calls at
	 * the edges of the window {@link #minus} would leave behind as a remainder.
	 */
	CommandCounts without(String name) {
		Map<String, Long> result = new TreeMap<>(this.calls);
		result.remove(name);
		return new CommandCounts(result);
	}

	long total() {
		return this.calls.values().stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * Commands clients sent, estimated from the share of each command that clients sent
	 * while a {@link MonitorProbe} watched the same workload; a command the probe did not
	 * see counts as sent by clients when a script cannot run it or the implementation
	 * sends it itself.
	 */
	double roundTrips(Map<String, Double> clientShares, Set<String> directCommands) {
		return this.calls.entrySet().stream().mapToDouble((entry) -> {
			String name = entry.getKey();
			double share = clientShares.getOrDefault(name,
					(isClientOnly(name) || directCommands.contains(name)) ? 1.0 : 0.0);
			return entry.getValue() * share;
		}).sum();
	}

	static void writeShares(Map<String, Double> clientShares, Figures figures) {
		clientShares.forEach((name, share) -> figures.put("share." + name, share));
	}

	static Map<String, Double> readShares(Figures figures) {
		Map<String, Double> shares = new TreeMap<>();
		figures.names()
			.stream()
			.filter((name) -> name.startsWith("share."))
			.forEach((name) -> shares.put(name.substring(6), figures.getDouble(name)));
		return shares;
	}

	private static boolean isClientOnly(String name) {
		return CLIENT_ONLY.contains(name) || name.startsWith("client|") || name.startsWith("script|")
				|| name.startsWith("command|");
	}

	/**
	 * Compact breakdown per operation, most frequent first:
	 * {@code evalsha 2 · get 2 · ...}.
	 */
	String perOperation(long operations) {
		if (operations == 0) {
			return "";
		}
		return this.calls.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.map((entry) -> entry.getKey() + " " + Figures.decimal((double) entry.getValue() / operations))
			.collect(Collectors.joining(" · "));
	}

	/** Compact breakdown of absolute counts: {@code psubscribe 1 · evalsha 3}. */
	String absolute() {
		return this.calls.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.map((entry) -> entry.getKey() + " " + entry.getValue())
			.collect(Collectors.joining(" · "));
	}

	void writeTo(Figures figures) {
		writeTo(figures, "");
	}

	/**
	 * Write the counts under names that start with the prefix, for a scenario that counts
	 * several windows.
	 */
	void writeTo(Figures figures, String prefix) {
		this.calls.forEach((name, count) -> figures.put(prefix + "cmd." + name, count));
	}

	static CommandCounts readFrom(Figures figures) {
		return readFrom(figures, "");
	}

	static CommandCounts readFrom(Figures figures, String prefix) {
		String start = prefix + "cmd.";
		Map<String, Long> calls = new TreeMap<>();
		figures.names()
			.stream()
			.filter((name) -> name.startsWith(start))
			.forEach((name) -> calls.put(name.substring(start.length()), figures.getLong(name)));
		return new CommandCounts(calls);
	}

}
