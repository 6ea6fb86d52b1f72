package io.github.redislock.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The locks of the many-held scenario and the threads that hold them. Each thread takes
 * its share of the keys, with no fixed lease so that the implementation's watchdog renews
 * them, sleeps until told to release, and releases its own: some lock APIs (Redisson's)
 * let only the thread that locked unlock. Many threads take the locks at once, so that
 * their round trips overlap on the client's connections.
 */
final class HeldLocks implements AutoCloseable {

	static final int THREADS = 32;

	private final LockClient client;

	private final String keyPrefix;

	private final LockClient.@Nullable Renewed[] held;

	private final Thread[] threads;

	private final CountDownLatch acquired;

	private final CountDownLatch release = new CountDownLatch(1);

	private final AtomicLong lossNoticed = new AtomicLong();

	private final AtomicLong lost = new AtomicLong();

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	private HeldLocks(LockClient client, String keyPrefix, int count) {
		this.client = client;
		this.keyPrefix = keyPrefix;
		this.held = new LockClient.Renewed[count];
		this.threads = new Thread[Math.min(THREADS, count)];
		this.acquired = new CountDownLatch(this.threads.length);
		for (int i = 0; i < this.threads.length; i++) {
			int first = i;
			this.threads[i] = new Thread(() -> hold(first), "lock-holder-" + i);
			this.threads[i].setDaemon(true);
		}
	}

	/**
	 * Take the given number of locks, named by the prefix and a number, and return once
	 * every one is held.
	 */
	static HeldLocks acquire(LockClient client, String keyPrefix, int count) throws InterruptedException {
		HeldLocks locks = new HeldLocks(client, keyPrefix, count);
		for (Thread thread : locks.threads) {
			thread.start();
		}
		locks.acquired.await();
		Throwable failed = locks.failure.get();
		if (failed != null) {
			locks.close();
			throw Failures.rethrow(failed);
		}
		return locks;
	}

	private void hold(int first) {
		try {
			for (int i = first; i < this.held.length; i += this.threads.length) {
				this.held[i] = this.client.acquireRenewed(this.keyPrefix + i);
			}
		}
		catch (Throwable ex) {
			this.failure.compareAndSet(null, ex);
		}
		finally {
			this.acquired.countDown();
		}
		try {
			this.release.await();
			for (int i = first; i < this.held.length; i += this.threads.length) {
				LockClient.Renewed lock = this.held[i];
				if (lock != null) {
					this.held[i] = null;
					// Asked first: a release that finds the lock lost may clear what the
					// holder was told
					boolean noticed = lock.lossNoticed();
					boolean released = lock.release();
					if (noticed) {
						this.lossNoticed.incrementAndGet();
					}
					if (noticed || !released) {
						this.lost.incrementAndGet();
					}
				}
			}
		}
		catch (Throwable ex) {
			this.failure.compareAndSet(null, ex);
		}
	}

	/**
	 * Release every lock, each from the thread that took it, and wait until done.
	 * @return what the releases found
	 */
	Outcome releaseAll() throws InterruptedException {
		this.release.countDown();
		for (Thread thread : this.threads) {
			thread.join();
		}
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
		return new Outcome(this.lost.get(), this.lossNoticed.get());
	}

	@Override
	public void close() throws InterruptedException {
		this.release.countDown();
		for (Thread thread : this.threads) {
			thread.join();
		}
	}

	/**
	 * What the releases found.
	 *
	 * @param lost locks that were no longer held: their holder had been told so, or their
	 * release found them gone in Redis
	 * @param lossNoticed locks whose holder had been told they were lost before it
	 * released them
	 */
	record Outcome(long lost, long lossNoticed) {
	}

}
