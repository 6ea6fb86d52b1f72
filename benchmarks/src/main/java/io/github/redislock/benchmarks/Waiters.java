package io.github.redislock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The waiting threads of the waiters scenario, kept from round to round as a thread pool
 * would be. Each round, every thread asks for the key once, takes it when granted, notes
 * the wall-clock time and releases it at once; between rounds they wait on a
 * {@link Phaser} that the scenario's thread, its last party, advances.
 */
final class Waiters implements WaitingCallers {

	/** How often the threads' states are looked at while they settle. */
	private static final long POLL_MILLIS = 10;

	private final LockClient client;

	private final Thread[] threads;

	/** Written by each thread in a round, read once the round's phase has advanced. */
	private final long[] grantedAt;

	private final Phaser phaser;

	private final AtomicInteger requested = new AtomicInteger();

	private final AtomicInteger granted = new AtomicInteger();

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	Waiters(LockClient client, int count) {
		this.client = client;
		this.threads = new Thread[count];
		this.grantedAt = new long[count];
		this.phaser = new Phaser(count + 1);
		for (int i = 0; i < count; i++) {
			int index = i;
			this.threads[i] = new Thread(() -> loop(index), "waiter-" + i);
			// A waiter stuck in a broken implementation must not keep the JVM alive
			this.threads[i].setDaemon(true);
			this.threads[i].start();
		}
	}

	private void loop(int index) {
		// Both waits return a negative phase once the phaser is terminated
		while (this.phaser.arriveAndAwaitAdvance() >= 0) {
			try {
				this.requested.incrementAndGet();
				LockClient.Release release = this.client.acquire(WaitersScenario.KEY);
				this.grantedAt[index] = LockHolder.epochMicros();
				this.granted.incrementAndGet();
				release.release();
			}
			catch (Throwable ex) {
				this.failure.compareAndSet(null, ex);
			}
			if (this.phaser.arriveAndAwaitAdvance() < 0) {
				return;
			}
		}
	}

	@Override
	public Thread[] threads() {
		return this.threads;
	}

	/** Let every thread ask for the key. */
	@Override
	public void request() {
		this.requested.set(0);
		this.granted.set(0);
		Arrays.fill(this.grantedAt, 0);
		this.phaser.arrive();
	}

	/**
	 * Wait until every thread has asked for the key and been sleeping for the given time,
	 * so that what follows measures waiting, not getting there.
	 */
	@Override
	public void awaitSettled(Duration settled, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		long parkedSince = System.nanoTime();
		while (System.nanoTime() - parkedSince < settled.toNanos()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The waiters did not settle into waiting within " + timeout);
			}
			throwIfFailed();
			if (this.requested.get() < this.threads.length
					|| !Arrays.stream(this.threads).allMatch(Waiters::isParked)) {
				parkedSince = System.nanoTime();
			}
			Thread.sleep(POLL_MILLIS);
		}
	}

	/** How many threads have been granted the key in this round so far. */
	@Override
	public int granted() {
		return this.granted.get();
	}

	/**
	 * Wait until every thread has been granted the key and released it.
	 * @return the wall-clock time in microseconds of each grant
	 */
	@Override
	public long[] awaitGrants(Duration timeout) throws InterruptedException, TimeoutException {
		this.phaser.awaitAdvanceInterruptibly(this.phaser.arrive(), timeout.toNanos(), TimeUnit.NANOSECONDS);
		throwIfFailed();
		return this.grantedAt.clone();
	}

	/** CPU time used so far by the waiting threads. */
	@Override
	public long cpuNanos() {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long sum = 0;
		for (Thread thread : this.threads) {
			sum += Math.max(0, threads.getThreadCpuTime(thread.getId()));
		}
		return sum;
	}

	private void throwIfFailed() {
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
	}

	private static boolean isParked(Thread thread) {
		Thread.State state = thread.getState();
		return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
	}

	@Override
	public void close() {
		this.phaser.forceTermination();
	}

}
