package io.github.redislock.benchmarks;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import reactor.core.publisher.Mono;

/**
 * The threads of one JVM on the hot key, or with a {@link ReactiveLockClient} as many
 * reactive chains, each taking the lock again as soon as it has released it. They start
 * together at a wall-clock time that every JVM of the run agrees on, run through the
 * warm-up without a pause, and count an acquisition when it was granted within the
 * measured window. Every acquisition, warm-up included, increments the counter, so that
 * the counter must end equal to their number. Each measured acquisition also records when
 * its critical section ran, for the {@link LockTimeline}. The lock is exclusive or fair
 * (fair with threads only).
 */
final class HotKeyRun {

	static final String KEY = "hot";

	private final LockClient client;

	private final boolean fair;

	private final Counter counter;

	private final TimedCallers callers;

	private final Samples[] waits;

	private final HeldSections[] sections;

	private final long[] measured;

	private final long[] total;

	/**
	 * @param callers how many threads, or reactive chains with a
	 * {@link ReactiveLockClient}, take turns on the key
	 */
	HotKeyRun(LockClient client, LockClient.Kind kind, Counter counter, int callers, long startEpochMillis,
			Duration warmup, Duration duration) {
		boolean reactive = client instanceof ReactiveLockClient;
		if (kind == LockClient.Kind.READ_WRITE || (reactive && kind != LockClient.Kind.EXCLUSIVE)) {
			throw new IllegalArgumentException("The hot key takes an exclusive or a fair lock, not " + kind
					+ ((reactive) ? ", and a reactive client only an exclusive lock" : ""));
		}
		this.client = client;
		this.fair = kind == LockClient.Kind.FAIR;
		this.counter = counter;
		this.waits = new Samples[callers];
		this.sections = new HeldSections[callers];
		this.measured = new long[callers];
		this.total = new long[callers];
		for (int i = 0; i < callers; i++) {
			this.waits[i] = new Samples();
			this.sections[i] = new HeldSections();
		}
		long startNanos = System.nanoTime() + (startEpochMillis - System.currentTimeMillis()) * 1_000_000;
		this.callers = (client instanceof ReactiveLockClient reactiveClient)
				? new TimedChains("hot-key", callers, startNanos, warmup, duration,
						(index) -> chain(reactiveClient, index))
				: new TimedThreads("hot-key", callers, startNanos, warmup, duration, this::loop);
	}

	HotKeyRun start() {
		this.callers.start();
		return this;
	}

	long measureFromNanos() {
		return this.callers.measureFromNanos();
	}

	long endNanos() {
		return this.callers.endNanos();
	}

	private void loop(int index) {
		while (true) {
			long requested = System.nanoTime();
			LockClient.Release release = this.fair ? this.client.acquireFair(KEY) : this.client.acquire(KEY);
			long granted = System.nanoTime();
			long sectionEnd;
			try {
				this.counter.increment();
			}
			finally {
				sectionEnd = System.nanoTime();
				release.release();
			}
			if (counted(index, requested, granted, sectionEnd)) {
				return;
			}
		}
	}

	/**
	 * The reactive form of {@link #loop}: the same acquisitions and the same critical
	 * section, each sent when the previous one has answered, with no thread waiting
	 * meanwhile. Reactor orders the signals of one chain, whatever threads they come on,
	 * so that the chain's counts need no more synchronization than a thread's. The
	 * section ends when the {@code SET} has answered, before the lock client releases.
	 */
	private Mono<Void> chain(ReactiveLockClient client, int index) {
		return Mono.defer(() -> {
			long requested = System.nanoTime();
			// The grant, then the end of the critical section
			long[] section = new long[2];
			return client.execute(KEY, Mono.defer(() -> {
				section[0] = System.nanoTime();
				return this.counter.incrementReactive().doOnSuccess((done) -> section[1] = System.nanoTime());
			})).then(Mono.fromCallable(() -> counted(index, requested, section[0], section[1])));
		}).repeat().takeUntil((over) -> over).then();
	}

	/**
	 * Count an acquisition, released by now.
	 * @return whether it was granted after the end of the window, which ends the caller's
	 * work
	 */
	private boolean counted(int index, long requestedNanos, long grantedNanos, long sectionEndNanos) {
		this.total[index]++;
		if (this.callers.isOver(grantedNanos)) {
			return true;
		}
		if (this.callers.isMeasured(grantedNanos)) {
			this.measured[index]++;
			this.waits[index].add(grantedNanos - requestedNanos);
			this.sections[index].add(grantedNanos, sectionEndNanos);
		}
		return false;
	}

	/**
	 * Sleep through the warm-up and the measured window, running an action at each end of
	 * the window, and return the CPU time this JVM used within it.
	 */
	long measure(Runnable atStart, Runnable atEnd) {
		return this.callers.measure(atStart, atEnd);
	}

	Outcome join(long cpuNanos) throws InterruptedException {
		this.callers.join();
		Samples allWaits = new Samples();
		HeldSections allSections = new HeldSections();
		long operations = 0;
		for (int i = 0; i < this.callers.size(); i++) {
			allWaits.addAll(this.waits[i]);
			allSections.addAll(this.sections[i]);
			operations += this.total[i];
		}
		return new Outcome(this.measured.clone(), allWaits, allSections, operations, cpuNanos);
	}

	/**
	 * What the threads of one JVM did.
	 *
	 * @param perThread measured acquisitions of each thread, or reactive chain
	 * @param waits time from request to grant of each measured acquisition, in
	 * nanoseconds
	 * @param sections the critical section of each measured acquisition, callers one
	 * after the other
	 * @param totalOperations every acquisition, warm-up included
	 * @param cpuNanos CPU time of the JVM within the measured window
	 */
	record Outcome(long[] perThread, Samples waits, HeldSections sections, long totalOperations, long cpuNanos) {

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
				output.writeInt(this.sections.size());
				for (int i = 0; i < this.sections.size(); i++) {
					output.writeLong(this.sections.granted(i));
					output.writeLong(this.sections.sectionEnd(i));
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
				HeldSections sections = new HeldSections();
				int sectionCount = input.readInt();
				for (int i = 0; i < sectionCount; i++) {
					sections.add(input.readLong(), input.readLong());
				}
				return new Outcome(perThread, waits, sections, totalOperations, cpuNanos);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
