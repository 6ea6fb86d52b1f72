package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

/**
 * The waiters of the waiters scenario as reactive chains, one per waiter, in place of the
 * threads of {@link Waiters}: each round, the scenario's thread subscribes every chain,
 * which asks for the key, notes the wall-clock time when granted and releases it at once.
 * No thread waits meanwhile, so there are no waiting threads whose CPU time to measure:
 * what waiting costs shows in the CPU of the JVM.
 */
final class ReactiveWaiters implements WaitingCallers {

	private final ReactiveLockClient client;

	/** Written by each chain in a round, read once the round has ended. */
	private final long[] grantedAt;

	private final AtomicInteger requested = new AtomicInteger();

	private final AtomicInteger granted = new AtomicInteger();

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	/** Counts down as the chains of the current round end. */
	private volatile CountDownLatch ended = new CountDownLatch(0);

	/** The chains of the current round, cancelled on close. */
	private volatile Disposable.Composite running = Disposables.composite();

	ReactiveWaiters(ReactiveLockClient client, int count) {
		this.client = client;
		this.grantedAt = new long[count];
	}

	@Override
	public Thread[] threads() {
		return new Thread[0];
	}

	/** Subscribe every chain of the round. */
	@Override
	public void request() {
		this.requested.set(0);
		this.granted.set(0);
		Arrays.fill(this.grantedAt, 0);
		CountDownLatch round = new CountDownLatch(this.grantedAt.length);
		Disposable.Composite chains = Disposables.composite();
		this.ended = round;
		this.running = chains;
		for (int i = 0; i < this.grantedAt.length; i++) {
			int index = i;
			chains.add(this.client.execute(WaitersScenario.KEY, Mono.fromRunnable(() -> {
				this.grantedAt[index] = LockHolder.epochMicros();
				this.granted.incrementAndGet();
			})).doOnSubscribe((subscription) -> this.requested.incrementAndGet()).subscribe(null, (ex) -> {
				this.failure.compareAndSet(null, ex);
				round.countDown();
			}, round::countDown));
		}
	}

	/**
	 * Wait until every chain has asked for the key, then for the given time, in which
	 * each has heard that the key is held and settled into waiting: a chain that waits
	 * has no state to look at, as a parked thread has.
	 */
	@Override
	public void awaitSettled(Duration settled, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.requested.get() < this.grantedAt.length) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The waiters did not all ask for the key within " + timeout);
			}
			throwIfFailed();
			Thread.sleep(1);
		}
		Thread.sleep(settled.toMillis());
		throwIfFailed();
	}

	@Override
	public int granted() {
		return this.granted.get();
	}

	@Override
	public long[] awaitGrants(Duration timeout) throws InterruptedException, TimeoutException {
		if (!this.ended.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
			throw new TimeoutException("The waiters were not all granted the key within " + timeout);
		}
		throwIfFailed();
		return this.grantedAt.clone();
	}

	@Override
	public long cpuNanos() {
		return 0;
	}

	private void throwIfFailed() {
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
	}

	@Override
	public void close() {
		this.running.dispose();
	}

}
