package io.github.redislock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Arrays;

/**
 * Used heap after full collections, read three times so that the spread of the readings
 * tells the noise of what is compared.
 */
final class HeapUsage {

	private HeapUsage() {
	}

	/** Used heap after each of three full collections, sorted. */
	static long[] afterCollections() throws InterruptedException {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		long[] readings = new long[3];
		for (int i = 0; i < readings.length; i++) {
			System.gc();
			Thread.sleep(200);
			readings[i] = memory.getHeapMemoryUsage().getUsed();
		}
		Arrays.sort(readings);
		return readings;
	}

}
