package io.github.redislock.benchmarks;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

import io.github.redislock.test.RedisCli;

/**
 * Threads lock and release many distinct keys once each; then, with the client still
 * open, how much heap does it keep per key? Heap is measured after full collections,
 * three times before and after, and the spread of those readings is reported as the noise
 * floor.
 */
final class ManyKeysScenario {

	/** Warm-up keys are few and reused so that no cache of keys is filled by them. */
	private static final int WARMUP_KEYS = 100;

	/**
	 * Time for per-key state that is dropped on a timer to go (redis-lock lingers 1 s).
	 */
	private static final long SETTLE_MILLIS = 2000;

	private ManyKeysScenario() {
	}

	static Figures run(ScenarioContext context) throws InterruptedException {
		BenchmarkSettings settings = context.settings();
		try (LockClient client = context.openClient(); RedisCli cli = context.cli()) {
			long warmupEnd = System.nanoTime() + settings.warmup().toNanos();
			run(client, settings.keyThreads(), 0, Integer.MAX_VALUE,
					(index) -> (System.nanoTime() - warmupEnd < 0) ? "many-keys-warmup:" + index % WARMUP_KEYS : null);
			long keysBefore = cli.dbSize();
			int half = settings.keys() / 2;
			long start = System.nanoTime();
			run(client, settings.keyThreads(), 0, half, (index) -> "many-keys:" + index);
			long elapsed = System.nanoTime() - start;
			Thread.sleep(SETTLE_MILLIS);
			long[] middle = HeapUsage.afterCollections();
			start = System.nanoTime();
			run(client, settings.keyThreads(), half, 2 * half, (index) -> "many-keys:" + index);
			elapsed += System.nanoTime() - start;
			Thread.sleep(SETTLE_MILLIS);
			long[] end = HeapUsage.afterCollections();
			// The second half alone: what the first left behind once (class data, caches
			// of a fixed size) is not per key
			long noise = Math.max(middle[2] - middle[0], end[2] - end[0]);
			return new Figures().put("keys", 2 * half)
				.put("opsPerSecond", 2 * half / (elapsed / 1e9))
				.put("retainedBytesPerKey", (double) (end[1] - middle[1]) / half)
				.put("noiseBytesPerKey", (double) noise / half)
				.put("redisKeysLeftPerKey", (double) (cli.dbSize() - keysBefore) / (2 * half));
		}
	}

	/**
	 * Lock and release the keys the function names, from several threads, until it
	 * returns {@code null} or the limit is reached.
	 */
	private static void run(LockClient client, int threads, int from, int limit, IntFunction<@Nullable String> keys)
			throws InterruptedException {
		AtomicInteger next = new AtomicInteger(from);
		AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
		Thread[] workers = new Thread[threads];
		for (int i = 0; i < threads; i++) {
			workers[i] = new Thread(() -> {
				try {
					int index;
					String key;
					while ((index = next.getAndIncrement()) < limit && (key = keys.apply(index)) != null) {
						client.acquire(key).release();
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "many-keys-" + i);
			workers[i].start();
		}
		for (Thread worker : workers) {
			worker.join();
		}
		Throwable failed = failure.get();
		if (failed != null) {
			throw Failures.rethrow(failed);
		}
	}

}
