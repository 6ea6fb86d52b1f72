package io.github.redislock.benchmarks;

import java.lang.management.ManagementFactory;

import io.github.redislock.test.RedisCli;

/**
 * CPU time used by this JVM and by the Redis server. Unlike throughput and latency, it
 * hardly moves when other work competes for the cores, so it tells what each
 * implementation costs even on a busy machine.
 */
final class CpuTime {

	private CpuTime() {
	}

	/** CPU time of every thread of this JVM so far, in nanoseconds. */
	static long process() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	/** CPU time of the Redis server so far, user and system, in nanoseconds. */
	static long redis(RedisCli cli) {
		double seconds = 0;
		for (String line : cli.info("cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return Math.round(seconds * 1e9);
	}

}
