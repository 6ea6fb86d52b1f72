package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import reactor.core.publisher.Mono;

/**
 * The reactive chains of one contention run, in place of {@link TimedThreads}: one thread
 * subscribes them all at the start time, and they run on whatever threads the lock and
 * the Redis client complete them on, none of them waiting; see {@link TimedCallers}.
 */
final class TimedChains extends TimedCallers {

	private final int count;

	private final Chain chain;

	private final Thread starter;

	private final CountDownLatch ended;

	/**
	 * What each chain does from the start time on, given its index: a {@link Mono} that
	 * completes when the chain is over.
	 */
	@FunctionalInterface
	interface Chain {

		Mono<?> run(int index);

	}

	TimedChains(String name, int count, long startNanos, Duration warmup, Duration duration, Chain chain) {
		super(startNanos, warmup, duration);
		this.count = count;
		this.chain = chain;
		this.ended = new CountDownLatch(count);
		this.starter = new Thread(this::subscribeAll, name + "-start");
	}

	private void subscribeAll() {
		ScenarioContext.sleepUntil(startNanos());
		for (int i = 0; i < this.count; i++) {
			int index = i;
			Mono.defer(() -> this.chain.run(index)).subscribe(null, (ex) -> {
				fail(ex);
				this.ended.countDown();
			}, this.ended::countDown);
		}
	}

	@Override
	void start() {
		this.starter.start();
	}

	@Override
	int size() {
		return this.count;
	}

	/** Wait for the starter and for every chain to end. */
	@Override
	void awaitCallers() throws InterruptedException {
		this.starter.join();
		this.ended.await();
	}

}
