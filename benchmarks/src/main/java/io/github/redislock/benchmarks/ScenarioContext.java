package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.test.RedisCli;

/**
 * What a scenario process runs against: one implementation, the benchmark's Redis server
 * and the settings.
 *
 * @param implementation the implementation under test
 * @param host the Redis host
 * @param port the Redis port
 * @param settings durations and sizes
 */
record ScenarioContext(Implementation implementation, String host, int port, BenchmarkSettings settings) {

	LockClient openClient() {
		return this.implementation.open(this.host, this.port);
	}

	RedisCli cli() {
		return new RedisCli(this.host, this.port, Duration.ofSeconds(30));
	}

	/**
	 * Arguments that let another JVM rebuild this context with {@link #fromArguments}.
	 */
	List<String> toArguments() {
		List<String> arguments = new ArrayList<>(
				List.of(this.implementation.id(), this.host, Integer.toString(this.port)));
		arguments.addAll(this.settings.toArguments());
		return arguments;
	}

	static ScenarioContext fromArguments(List<String> arguments) {
		return new ScenarioContext(Implementation.fromId(arguments.get(0)), arguments.get(1),
				Integer.parseInt(arguments.get(2)),
				BenchmarkSettings.fromArguments(arguments.subList(3, arguments.size())));
	}

	/** Sleep until {@link System#nanoTime()} reaches the deadline. */
	static void sleepUntil(long deadlineNanos) {
		long left;
		while ((left = deadlineNanos - System.nanoTime()) > 0) {
			LockSupport.parkNanos(left);
		}
	}

}
