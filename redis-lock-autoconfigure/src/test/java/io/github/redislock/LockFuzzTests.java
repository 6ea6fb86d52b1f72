package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * Threads of two nodes increment counters in Redis with a non-atomic GET and SET under
 * the lock: any overlap of two holders loses an update, so the totals are exact only if
 * the lock excludes. An in-JVM gauge of the threads inside each critical section catches
 * an overlap directly, and fencing tokens must increase in the order the lock was held.
 */
@RedisTest
class LockFuzzTests {

	private static final int THREADS = 16;

	/** Iterations per thread on one key: most grants pass between local threads. */
	private static final int ONE_KEY_ITERATIONS = 300;

	/** Iterations per thread over four keys: more grants go through Redis. */
	private static final int FOUR_KEY_ITERATIONS = 100;

	/** How long a thread may wait for the lock: far beyond any fair share of a run. */
	private static final Duration WAIT_TIME = Duration.ofSeconds(15);

	private static final Duration RUN_LIMIT = Duration.ofSeconds(25);

	private StandaloneLocks locks;

	private List<LockTemplate> nodes;

	private RedisServer server;

	private RedisCli cli;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.server = server;
		this.locks = new StandaloneLocks(server);
		LockOptions options = LockOptions.defaults().withWaitTime(WAIT_TIME);
		this.nodes = List.of(this.locks.template(options), this.locks.template(options));
		this.cli = this.locks.cli();
		this.executor = Executors.newFixedThreadPool(THREADS);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void sixteenThreadsOnTwoNodesNeverOverlapAndLoseNoIncrement() throws Exception {
		Sections sections = new Sections(1);
		runThreads((thread, cli) -> {
			LockTemplate node = this.nodes.get(thread % this.nodes.size());
			for (int i = 0; i < ONE_KEY_ITERATIONS; i++) {
				node.run("counter", () -> sections.increment(0, node, cli, "fuzz:counter"));
			}
		});
		int total = THREADS * ONE_KEY_ITERATIONS;
		assertSoftly((softly) -> {
			softly.assertThat(this.cli.get("fuzz:counter")).isEqualTo(Integer.toString(total));
			softly.assertThat(sections.maxInside(0)).as("threads inside the critical section at once").isEqualTo(1);
			softly.assertThat(sections.entries(0)).isEqualTo(total);
			softly.assertThat(sections.nodeChanges(0))
				.as("times the lock passed from one node to the other")
				.isGreaterThan(2);
		});
		assertNothingHeld();
	}

	@Test
	void sixteenThreadsOverFourKeysKeepEachKeysCounterExact() throws Exception {
		int keys = 4;
		Sections sections = new Sections(keys);
		runThreads((thread, cli) -> {
			LockTemplate node = this.nodes.get(thread % this.nodes.size());
			for (int i = 0; i < FOUR_KEY_ITERATIONS; i++) {
				int key = ThreadLocalRandom.current().nextInt(keys);
				node.run("counter:" + key, () -> sections.increment(key, node, cli, "fuzz:counter:" + key));
			}
		});
		assertSoftly((softly) -> {
			long total = 0;
			for (int key = 0; key < keys; key++) {
				softly.assertThat(this.cli.get("fuzz:counter:" + key))
					.as("counter of key %d", key)
					.isEqualTo(Long.toString(sections.entries(key)));
				softly.assertThat(sections.maxInside(key))
					.as("threads inside the section of key %d at once", key)
					.isEqualTo(1);
				total += sections.entries(key);
			}
			softly.assertThat(total).isEqualTo(THREADS * FOUR_KEY_ITERATIONS);
		});
		assertNothingHeld();
	}

	@Test
	void fencingTokensIncreaseFromEachHolderToTheNext() throws Exception {
		List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
		runThreads((thread, cli) -> {
			LockTemplate node = this.nodes.get(thread % this.nodes.size());
			for (int i = 0; i < FOUR_KEY_ITERATIONS; i++) {
				try (LockHandle handle = node.lock("tokens")) {
					// Appended in the order the lock was held, if it excludes.
					tokens.add(handle.fencingToken());
					Thread.yield();
				}
			}
		});
		assertThat(tokens).hasSize(THREADS * FOUR_KEY_ITERATIONS).isSorted().doesNotHaveDuplicates();
		assertNothingHeld();
	}

	private void runThreads(Worker worker) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>();
		for (int thread = 0; thread < THREADS; thread++) {
			int id = thread;
			futures.add(this.executor.submit(() -> {
				// A connection per thread: the counter is read and written outside the
				// lock's own connection, as an application would.
				try (RedisCli cli = this.server.cli()) {
					start.await();
					worker.run(id, cli);
				}
				return null;
			}));
		}
		start.countDown();
		long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
		for (Future<?> future : futures) {
			future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
	}

	private void assertNothingHeld() {
		for (LockTemplate node : this.nodes) {
			assertThat(this.locks.diagnostics(node).heldCount()).isZero();
			assertThat(this.locks.diagnostics(node).renewedCount()).isZero();
		}
		assertThat(this.cli.keys("redis-lock:{*}")).isEmpty();
	}

	@FunctionalInterface
	private interface Worker {

		void run(int thread, RedisCli cli) throws Exception;

	}

	/**
	 * Critical sections per key: a gauge of the threads inside, its maximum, how many
	 * entered, and how often the node holding the lock changed.
	 */
	private static final class Sections {

		private final AtomicIntegerArray inside;

		private final AtomicIntegerArray maxInside;

		private final AtomicLongArray entries;

		private final AtomicReferenceArray<LockTemplate> lastNode;

		private final AtomicIntegerArray nodeChanges;

		Sections(int keys) {
			this.inside = new AtomicIntegerArray(keys);
			this.maxInside = new AtomicIntegerArray(keys);
			this.entries = new AtomicLongArray(keys);
			this.lastNode = new AtomicReferenceArray<>(keys);
			this.nodeChanges = new AtomicIntegerArray(keys);
		}

		void increment(int key, LockTemplate node, RedisCli cli, String counter) {
			int now = this.inside.incrementAndGet(key);
			this.maxInside.accumulateAndGet(key, now, Math::max);
			this.entries.incrementAndGet(key);
			LockTemplate last = this.lastNode.getAndSet(key, node);
			if (last != null && last != node) {
				this.nodeChanges.incrementAndGet(key);
			}
			try {
				String value = cli.get(counter);
				long current = (value != null) ? Long.parseLong(value) : 0;
				thinkTime();
				cli.set(counter, Long.toString(current + 1));
			}
			finally {
				this.inside.decrementAndGet(key);
			}
		}

		private static void thinkTime() {
			// Widen the window between read and write now and then.
			if (ThreadLocalRandom.current().nextInt(4) == 0) {
				LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(300)));
			}
			else {
				Thread.yield();
			}
		}

		int maxInside(int key) {
			return this.maxInside.get(key);
		}

		long entries(int key) {
			return this.entries.get(key);
		}

		int nodeChanges(int key) {
			return this.nodeChanges.get(key);
		}

	}

}
