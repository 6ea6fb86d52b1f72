package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads of one JVM on one read/write lock: each acquisition is a read, a {@code GET} of
 * the counter under the read lock, or one time in {@value #WRITE_ONE_IN} a write, the
 * {@link Counter#increment() GET + SET} under the write lock. Which one comes from a
 * random sequence seeded per thread, so that every implementation is given the same mix
 * in the same order.
 * <p>
 * Like {@link HotKeyRun}, the threads run through the warm-up without a pause and count
 * an acquisition when it was granted within the measured window; every write, warm-up
 * included, increments the counter. Besides lost writes, the threads count overlaps they
 * see themselves: a reader admitted while a writer holds the lock, or a writer beside
 * another holder. A {@code GET} cannot lose anything, so only this tells that readers
 * were kept out.
 */
final class ReadWriteRun {

	static final String KEY = "read-write";

	/** One acquisition in this many is a write: 90% reads. */
	static final int WRITE_ONE_IN = 10;

	private static final long SEED = 0x5EED;

	/** Time for the threads to be started before they all begin. */
	private static final Duration START_DELAY = Duration.ofMillis(200);

	private final LockClient client;

	private final Counter counter;

	private final TimedThreads threads;

	private final Samples[] readWaits;

	private final Samples[] writeWaits;

	private final long[] totalWrites;

	private final AtomicInteger readersInside = new AtomicInteger();

	private final AtomicInteger writersInside = new AtomicInteger();

	private final AtomicLong overlaps = new AtomicLong();

	ReadWriteRun(LockClient client, Counter counter, int threads, Duration warmup, Duration duration) {
		this.client = client;
		this.counter = counter;
		this.readWaits = new Samples[threads];
		this.writeWaits = new Samples[threads];
		this.totalWrites = new long[threads];
		for (int i = 0; i < threads; i++) {
			this.readWaits[i] = new Samples();
			this.writeWaits[i] = new Samples();
		}
		this.threads = new TimedThreads("read-write", threads, System.nanoTime() + START_DELAY.toNanos(), warmup,
				duration, this::loop);
	}

	ReadWriteRun start() {
		this.threads.start();
		return this;
	}

	long measureFromNanos() {
		return this.threads.measureFromNanos();
	}

	private void loop(int index) {
		SplittableRandom random = new SplittableRandom(SEED + index);
		while (true) {
			boolean write = random.nextInt(WRITE_ONE_IN) == 0;
			long requested = System.nanoTime();
			LockClient.Release release = write ? this.client.acquireWrite(KEY) : this.client.acquireRead(KEY);
			long granted = System.nanoTime();
			try {
				if (write) {
					write();
				}
				else {
					read();
				}
			}
			finally {
				release.release();
			}
			if (write) {
				this.totalWrites[index]++;
			}
			if (this.threads.isOver(granted)) {
				return;
			}
			if (this.threads.isMeasured(granted)) {
				(write ? this.writeWaits : this.readWaits)[index].add(granted - requested);
			}
		}
	}

	private void read() {
		// A holder counts itself in before it looks at the others and out before it
		// releases, so that two holders at once always see each other
		this.readersInside.incrementAndGet();
		if (this.writersInside.get() > 0) {
			this.overlaps.incrementAndGet();
		}
		try {
			this.counter.read();
		}
		finally {
			this.readersInside.decrementAndGet();
		}
	}

	private void write() {
		if (this.writersInside.incrementAndGet() > 1 || this.readersInside.get() > 0) {
			this.overlaps.incrementAndGet();
		}
		try {
			this.counter.increment();
		}
		finally {
			this.writersInside.decrementAndGet();
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
		Samples reads = new Samples();
		Samples writes = new Samples();
		long totalWrites = 0;
		for (int i = 0; i < this.threads.size(); i++) {
			reads.addAll(this.readWaits[i]);
			writes.addAll(this.writeWaits[i]);
			totalWrites += this.totalWrites[i];
		}
		return new Outcome(reads, writes, totalWrites, this.overlaps.get(), cpuNanos);
	}

	/**
	 * What the threads did.
	 *
	 * @param readWaits time from request to grant of each measured read, in nanoseconds
	 * @param writeWaits the same for each measured write
	 * @param totalWrites every write, warm-up included
	 * @param overlaps acquisitions that found a holder they should have excluded
	 * @param cpuNanos CPU time of the JVM within the measured window
	 */
	record Outcome(Samples readWaits, Samples writeWaits, long totalWrites, long overlaps, long cpuNanos) {

	}

}
