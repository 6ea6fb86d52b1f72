package io.github.redislock.benchmarks;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The threads of one JVM on the hot key. They start together at a wall-clock time that
 * every JVM of the run agrees on, run through the warm-up without a pause, and count an
 * acquisition when it was granted within the measured window. Every acquisition, warm-up
 * included, increments the counter, so that the counter must end equal to their number.
 * The lock is exclusive or fair.
 */
final class HotKeyRun {

	static final String KEY = "hot";

	private final LockClient client;

	private final boolean fair;

	private final Counter counter;

	private final TimedThreads threads;

	private final Samples[] waits;

	private final long[] measured;

	private final long[] total;

	HotKeyRun(LockClient client, LockClient.Kind kind, Counter counter, int threads, long startEpochMillis,
			Duration warmup, Duration duration) {
		if (kind == LockClient.Kind.READ_WRITE) {
			throw new IllegalArgumentException("The hot key takes an exclusive or a fair lock, not " + kind);
		}
		this.client = client;
		this.fair = kind == LockClient.Kind.FAIR;
		this.counter = counter;
		this.waits = new Samples[threads];
		this.measured = new long[threads];
		this.total = new long[threads];
		for (int i = 0; i < threads; i++) {
			this.waits[i] = new Samples();
		}
		long startNanos = System.nanoTime() + (startEpochMillis - System.currentTimeMillis()) * 1_000_000;
		this.threads = new TimedThreads("hot-key", threads, startNanos, warmup, duration, this::loop);
	}

	HotKeyRun start() {
		this.threads.start();
		return this;
	}

	long measureFromNanos() {
		return this.threads.measureFromNanos();
	}

	long endNanos() {
		return this.threads.endNanos();
	}

	private void loop(int index) {
		while (true) {
			long requested = System.nanoTime();
			LockClient.Release release = this.fair ? this.client.acquireFair(KEY) : this.client.acquire(KEY);
			long granted = System.nanoTime();
			try {
				this.counter.increment();
			}
			finally {
				release.release();
			}
			this.total[index]++;
			if (this.threads.isOver(granted)) {
				return;
			}
			if (this.threads.isMeasured(granted)) {
				this.measured[index]++;
				this.waits[index].add(granted - requested);
			}
		}
	}

	/**
	 * Sleep through the warm-up and the measured window, running an action at each end of
	 * the window, and return the CPU time this JVM used within it.
	 */
	long measure(Runnable atStart, Runnable atEnd) {
		return this.threads.measure(atStart, atEnd);
	}

	Outcome join(long cpuNanos) throws InterruptedException {
		this.threads.join();
		Samples allWaits = new Samples();
		long operations = 0;
		for (int i = 0; i < this.threads.size(); i++) {
			allWaits.addAll(this.waits[i]);
			operations += this.total[i];
		}
		return new Outcome(this.measured.clone(), allWaits, operations, cpuNanos);
	}

	/**
	 * What the threads of one JVM did.
	 *
	 * @param perThread measured acquisitions of each thread
	 * @param waits time from request to grant of each measured acquisition, in
	 * nanoseconds
	 * @param totalOperations every acquisition, warm-up included
	 * @param cpuNanos CPU time of the JVM within the measured window
	 */
	record Outcome(long[] perThread, Samples waits, long totalOperations, long cpuNanos) {

		long measured() {
			long sum = 0;
			for (long count : this.perThread) {
				sum += count;
			}
			return sum;
		}

		void writeTo(Path file) {
			try (DataOutputStream output = new DataOutputStream(Files.newOutputStream(file))) {
				output.writeInt(this.perThread.length);
				for (long count : this.perThread) {
					output.writeLong(count);
				}
				output.writeLong(this.totalOperations);
				output.writeLong(this.cpuNanos);
				output.writeInt(this.waits.size());
				for (int i = 0; i < this.waits.size(); i++) {
					output.writeLong(this.waits.get(i));
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		static Outcome readFrom(Path file) {
			try (DataInputStream input = new DataInputStream(Files.newInputStream(file))) {
				long[] perThread = new long[input.readInt()];
				for (int i = 0; i < perThread.length; i++) {
					perThread[i] = input.readLong();
				}
				long totalOperations = input.readLong();
				long cpuNanos = input.readLong();
				Samples waits = new Samples();
				int size = input.readInt();
				for (int i = 0; i < size; i++) {
					waits.add(input.readLong());
				}
				return new Outcome(perThread, waits, totalOperations, cpuNanos);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
