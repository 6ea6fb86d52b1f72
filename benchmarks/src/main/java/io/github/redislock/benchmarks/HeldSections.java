package io.github.redislock.benchmarks;

import java.util.Arrays;

/**
 * The critical sections one caller of the hot key ran within the measured window, each
 * from its grant (the {@link System#nanoTime()} right after the lock was acquired) to its
 * end (right after the critical section, before the release), in the order they ran. Two
 * primitive arrays that grow by doubling, so that recording allocates nothing per
 * acquisition. {@link System#nanoTime()} reads {@code CLOCK_MONOTONIC} on Linux, the same
 * clock in every JVM of the machine, so that sections of two JVMs can be put on one time
 * line; see {@link LockTimeline}.
 */
final class HeldSections {

	private long[] granted = new long[4096];

	private long[] ended = new long[4096];

	private int size;

	void add(long grantedNanos, long sectionEndNanos) {
		if (this.size == this.granted.length) {
			this.granted = Arrays.copyOf(this.granted, this.size * 2);
			this.ended = Arrays.copyOf(this.ended, this.size * 2);
		}
		this.granted[this.size] = grantedNanos;
		this.ended[this.size] = sectionEndNanos;
		this.size++;
	}

	void addAll(HeldSections other) {
		for (int i = 0; i < other.size; i++) {
			add(other.granted[i], other.ended[i]);
		}
	}

	int size() {
		return this.size;
	}

	long granted(int index) {
		return this.granted[index];
	}

	long sectionEnd(int index) {
		return this.ended[index];
	}

}
