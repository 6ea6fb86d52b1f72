package io.github.redislock.benchmarks;

import java.util.Arrays;

/**
 * Durations in nanoseconds recorded by one thread, merged after the run, and their
 * percentiles. Every sample is kept: a run records at most a few hundred thousand.
 */
final class Samples {

	private long[] values = new long[1024];

	private int size;

	private boolean sorted;

	void add(long nanos) {
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = nanos;
		this.sorted = false;
	}

	void addAll(Samples other) {
		for (int i = 0; i < other.size; i++) {
			add(other.values[i]);
		}
	}

	void clear() {
		this.size = 0;
		this.sorted = false;
	}

	int size() {
		return this.size;
	}

	long get(int index) {
		return this.values[index];
	}

	/** The value below which the fraction of samples lies, nearest rank; 0 if empty. */
	long percentile(double fraction) {
		if (this.size == 0) {
			return 0;
		}
		sort();
		int rank = (int) Math.ceil(fraction * this.size);
		return this.values[Math.max(0, Math.min(this.size - 1, rank - 1))];
	}

	long max() {
		return percentile(1.0);
	}

	private void sort() {
		if (!this.sorted) {
			Arrays.sort(this.values, 0, this.size);
			this.sorted = true;
		}
	}

}
