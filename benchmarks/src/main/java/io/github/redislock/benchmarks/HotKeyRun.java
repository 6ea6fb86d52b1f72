package io.github.redislock.benchmarks;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

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

	private final long startNanos;

	private final long measureFromNanos;

	private final long endNanos;

	private final Thread[] threads;

	private final Samples[] waits;

	private final long[] measured;

	private final long[] total;

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	HotKeyRun(LockClient client, LockClient.Kind kind, Counter counter, int threads, long startEpochMillis,
			Duration warmup, Duration duration) {
		if (kind == LockClient.Kind.READ_WRITE) {
			throw new IllegalArgumentException("The hot key takes an exclusive or a fair lock, not " + kind);
		}
		this.client = client;
		this.fair = kind == LockClient.Kind.FAIR;
		this.counter = counter;
		this.startNanos = System.nanoTime() + (startEpochMillis - System.currentTimeMillis()) * 1_000_000;
		this.measureFromNanos = this.startNanos + warmup.toNanos();
		this.endNanos = this.measureFromNanos + duration.toNanos();
		this.threads = new Thread[threads];
		this.waits = new Samples[threads];
		this.measured = new long[threads];
		this.total = new long[threads];
		for (int i = 0; i < threads; i++) {
			int index = i;
			this.waits[i] = new Samples();
			this.threads[i] = new Thread(() -> loop(index), "hot-key-" + i);
		}
	}

	HotKeyRun start() {
		for (Thread thread : this.threads) {
			thread.start();
		}
		return this;
	}

	long measureFromNanos() {
		return this.measureFromNanos;
	}

	long endNanos() {
		return this.endNanos;
	}

	private void loop(int index) {
		try {
			ScenarioContext.sleepUntil(this.startNanos);
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
				if (granted - this.endNanos >= 0) {
					return;
				}
				if (granted - this.measureFromNanos >= 0) {
					this.measured[index]++;
					this.waits[index].add(granted - requested);
				}
			}
		}
		catch (Throwable ex) {
			this.failure.compareAndSet(null, ex);
		}
	}

	/**
	 * Sleep through the warm-up and the measured window, running an action at each end of
	 * the window, and return the CPU time this JVM used within it.
	 */
	long measure(Runnable atStart, Runnable atEnd) {
		ScenarioContext.sleepUntil(this.measureFromNanos);
		atStart.run();
		long cpu = -CpuTime.process();
		ScenarioContext.sleepUntil(this.endNanos);
		cpu += CpuTime.process();
		atEnd.run();
		return cpu;
	}

	Outcome join(long cpuNanos) throws InterruptedException {
		for (Thread thread : this.threads) {
			thread.join();
		}
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
		Samples allWaits = new Samples();
		long operations = 0;
		for (int i = 0; i < this.threads.length; i++) {
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
