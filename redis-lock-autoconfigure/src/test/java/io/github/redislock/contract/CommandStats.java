package io.github.redislock.contract;

import java.util.HashMap;
import java.util.Map;

import io.github.redislock.test.RedisCli;

/**
 * What a Redis server counted of the commands it ran, read from {@code INFO
 * commandstats}: tests compare two readings to tell how many round trips a lock operation
 * cost.
 */
public final class CommandStats {

	private CommandStats() {
	}

	/**
	 * Calls of each command so far on one server.
	 * @param cli a connection to the server
	 * @return the calls by command name, e.g. {"evalsha": 12}
	 */
	public static Map<String, Long> commandCalls(RedisCli cli) {
		Map<String, Long> calls = new HashMap<>();
		for (String line : cli.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String stats = line.substring(line.indexOf(':') + 1);
				String callsField = stats.substring(stats.indexOf("calls=") + 6);
				calls.put(name, Long.parseLong(callsField.substring(0, callsField.indexOf(','))));
			}
		}
		return calls;
	}

	/**
	 * Commands that lock clients sent so far to one server: scripts and subscriptions.
	 * Commands that scripts run inside Redis are counted by INFO too, but cost no round
	 * trip, so they are left out.
	 * @param cli a connection to the server
	 * @return the number of round trips
	 */
	public static long roundTrips(RedisCli cli) {
		return roundTrips(commandCalls(cli));
	}

	/**
	 * Scripts that one server ran so far.
	 * @param cli a connection to the server
	 * @return the number of {@code EVAL} and {@code EVALSHA} calls
	 */
	public static long scriptCalls(RedisCli cli) {
		return scriptCalls(commandCalls(cli));
	}

	static long scriptCalls(Map<String, Long> calls) {
		return calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
	}

	static long roundTrips(Map<String, Long> calls) {
		return calls.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith("eval") || entry.getKey().contains("subscribe"))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

}
