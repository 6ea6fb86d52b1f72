package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The reactive chains of one contention run, in place of {@link TimedThreads}: one thread
 * subscribes them all at the start time, and they run on whatever threads the lock and
 * the Redis client complete them on, none of them waiting; see {@link TimedCallers}.
 */
final class TimedChains implements TimedCallers {

	private final long startNanos;

	private final long measureFromNanos;

	private final long endNanos;

	private final int count;

	private final Chain chain;

	private final Thread starter;

	private final CountDownLatch ended;

	private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

	/**
	 * What each chain does from the start time on, given its index: a {@link Mono} that
	 * completes when the chain is over.
	 */
	@FunctionalInterface
	interface Chain {

		Mono<?> run(int index);

	}

	TimedChains(String name, int count, long startNanos, Duration warmup, Duration duration, Chain chain) {
		this.startNanos = startNanos;
		this.measureFromNanos = startNanos + warmup.toNanos();
		this.endNanos = this.measureFromNanos + duration.toNanos();
		this.count = count;
		this.chain = chain;
		this.ended = new CountDownLatch(count);
		this.starter = new Thread(this::subscribeAll, name + "-start");
	}

	private void subscribeAll() {
		ScenarioContext.sleepUntil(this.startNanos);
		for (int i = 0; i < this.count; i++) {
			int index = i;
			Mono.defer(() -> this.chain.run(index)).subscribe(null, (ex) -> {
				this.failure.compareAndSet(null, ex);
				this.ended.countDown();
			}, this.ended::countDown);
		}
	}

	@Override
	public void start() {
		this.starter.start();
	}

	@Override
	public int size() {
		return this.count;
	}

	@Override
	public long measureFromNanos() {
		return this.measureFromNanos;
	}

	@Override
	public long endNanos() {
		return this.endNanos;
	}

	/** Wait for every chain to end; rethrow the first failure. */
	@Override
	public void join() throws InterruptedException {
		this.starter.join();
		this.ended.await();
		Throwable failed = this.failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
	}

}
