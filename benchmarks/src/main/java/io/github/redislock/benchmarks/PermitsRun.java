package io.github.redislock.benchmarks;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The threads of one JVM on {@value #LIMIT} permits of one name, each taking a permit
 * again as soon as it has given it back. Under the permit a thread counts itself in with
 * the {@link Holders} checker, holds the permit until {@link #HOLD} after its grant and
 * counts itself out before it releases. Like {@link HotKeyRun}, the threads start
 * together at a wall-clock time that every JVM of the run agrees on, run through the
 * warm-up without a pause, and count an acquisition when it was granted within the
 * measured window; the checker watches every acquisition, warm-up included.
 */
final class PermitsRun {

	static final String KEY = "permits";

	/** How many may hold a permit at once. */
	static final int LIMIT = 4;

	/**
	 * How long a holder keeps its permit from its grant: fixed, so that the permits bound
	 * the throughput at about {@value #LIMIT} per millisecond, and long beside the
	 * checker's two commands (a hot key's {@code GET} and {@code SET} take about a tenth
	 * of it).
	 */
	static final Duration HOLD = Duration.ofMillis(1);

	private final LockClient client;

	private final Holders holders;

	private final TimedThreads threads;

	private final Samples[] waits;

	private final long[] measured;

	private final long[] total;

	private final long[] peak;

	/** Time each thread held its permit, over measured acquisitions. */
	private final long[] heldNanos;

	PermitsRun(LockClient client, Holders holders, int threads, long startEpochMillis, Duration warmup,
			Duration duration) {
		this.client = client;
		this.holders = holders;
		this.waits = new Samples[threads];
		this.measured = new long[threads];
		this.total = new long[threads];
		this.peak = new long[threads];
		this.heldNanos = new long[threads];
		for (int i = 0; i < threads; i++) {
			this.waits[i] = new Samples();
		}
		long startNanos = System.nanoTime() + (startEpochMillis - System.currentTimeMillis()) * 1_000_000;
		this.threads = new TimedThreads("permits", threads, startNanos, warmup, duration, this::loop);
	}

	PermitsRun start() {
		this.threads.start();
		return this;
	}

	long measureFromNanos() {
		return this.threads.measureFromNanos();
	}

	private void loop(int index) {
		while (true) {
			long requested = System.nanoTime();
			LockClient.Release release = this.client.acquirePermit(KEY, LIMIT);
			long granted = System.nanoTime();
			long sectionEnd;
			try {
				this.peak[index] = Math.max(this.peak[index], this.holders.enter());
				try {
					ScenarioContext.sleepUntil(granted + HOLD.toNanos());
				}
				finally {
					this.holders.leave();
				}
			}
			finally {
				sectionEnd = System.nanoTime();
				release.release();
			}
			this.total[index]++;
			if (this.threads.isOver(granted)) {
				return;
			}
			if (this.threads.isMeasured(granted)) {
				this.measured[index]++;
				this.waits[index].add(granted - requested);
				this.heldNanos[index] += sectionEnd - granted;
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
		long peakHolders = 0;
		long held = 0;
		for (int i = 0; i < this.threads.size(); i++) {
			allWaits.addAll(this.waits[i]);
			operations += this.total[i];
			peakHolders = Math.max(peakHolders, this.peak[i]);
			held += this.heldNanos[i];
		}
		return new Outcome(this.measured.clone(), allWaits, operations, cpuNanos, peakHolders, held);
	}

	/**
	 * What the threads of one JVM did.
	 *
	 * @param perThread measured acquisitions of each thread
	 * @param waits time from request to grant of each measured acquisition, in
	 * nanoseconds
	 * @param totalOperations every acquisition, warm-up included
	 * @param cpuNanos CPU time of the JVM within the measured window
	 * @param peakHolders the most holders the checker counted when one of these threads
	 * came in, warm-up included
	 * @param heldNanos the time the measured acquisitions held their permits, summed
	 */
	record Outcome(long[] perThread, Samples waits, long totalOperations, long cpuNanos, long peakHolders,
			long heldNanos) {

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
				output.writeLong(this.peakHolders);
				output.writeLong(this.heldNanos);
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
				long peakHolders = input.readLong();
				long heldNanos = input.readLong();
				Samples waits = new Samples();
				int size = input.readInt();
				for (int i = 0; i < size; i++) {
					waits.add(input.readLong());
				}
				return new Outcome(perThread, waits, totalOperations, cpuNanos, peakHolders, heldNanos);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
