package io.github.redislock.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.ClusterLocks;
import io.github.redislock.contract.CriticalSections;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * Threads of two nodes increment counters in the cluster with a non-atomic GET and SET
 * under the lock, over a handful of hot locks on all three primaries: any overlap of two
 * holders of one lock loses an update, so each counter is exact only if the lock
 * excludes. The recorded critical sections catch an overlap directly, and fencing tokens
 * must not decrease from one holder of a lock to the next.
 */
class ClusterLockFuzzTests {

	private static final int THREADS = 8;

	private static final int ITERATIONS = 150;

	/** Two hot locks per primary. */
	private static final int LOCKS_PER_PRIMARY = 2;

	/** How long a thread may wait for a lock: far beyond any fair share of a run. */
	private static final Duration WAIT_TIME = Duration.ofSeconds(15);

	private static final Duration RUN_LIMIT = Duration.ofSeconds(30);

	private static RedisCluster cluster;

	private static List<String> names;

	private ClusterLocks locks;

	private List<LockTemplate> nodes;

	private List<StringRedisTemplate> data;

	private ExecutorService executor;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
		names = ClusterLocks.namesOnEveryPrimary(cluster, "hot", LOCKS_PER_PRIMARY);
	}

	@AfterAll
	static void closeCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void setUp() {
		this.locks = new ClusterLocks(cluster);
		this.locks.flush();
		LockOptions options = LockOptions.defaults().withWaitTime(WAIT_TIME);
		this.nodes = List.of(this.locks.template(options), this.locks.template(options));
		// Each node reads and writes its counters on a connection of its own, as an
		// application would.
		this.data = List.of(this.locks.data(), this.locks.data());
		this.executor = Executors.newFixedThreadPool(THREADS);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	/** The hot locks of this test hit all three primaries. */
	@Test
	void hotLocksHitEveryPrimary() {
		assertThat(new HashSet<>(names.stream().map(this.locks::primaryOf).toList())).hasSize(3)
			.containsExactlyInAnyOrderElementsOf(cluster.primaries());
		assertThat(names.stream().map(ClusterLocks::slotOf).distinct()).hasSize(names.size());
	}

	/**
	 * Eight threads on two nodes, each lock taken in turn by both nodes, lose no
	 * increment and never run two sections of one lock at once.
	 */
	@Test
	void threadsOnTwoNodesNeverOverlapAndLoseNoIncrement() throws Exception {
		CriticalSections sections = new CriticalSections();
		runThreads((thread) -> {
			LockTemplate node = this.nodes.get(thread % this.nodes.size());
			StringRedisTemplate data = this.data.get(thread % this.data.size());
			for (int i = 0; i < ITERATIONS; i++) {
				String name = names.get(ThreadLocalRandom.current().nextInt(names.size()));
				try (LockHandle handle = node.lock(name)) {
					CriticalSections.Section section = sections.enter(name, node, handle.fencingToken());
					try {
						increment(data, counterKey(name));
					}
					finally {
						sections.exit(section);
					}
				}
			}
		});
		StringRedisTemplate data = this.data.get(0);
		assertSoftly((softly) -> {
			long total = 0;
			for (String name : names) {
				softly.assertThat(data.opsForValue().get(counterKey(name)))
					.as("counter of %s", name)
					.isEqualTo(Long.toString(sections.entries(name)));
				softly.assertThat(sections.maxInside(name)).as("threads inside %s at once", name).isEqualTo(1);
				softly.assertThat(sections.nodeChanges(name))
					.as("times %s passed from one node to the other", name)
					.isPositive();
				total += sections.entries(name);
			}
			softly.assertThat(total).isEqualTo(THREADS * ITERATIONS);
			softly.assertThat(sections.overlaps(true)).isEmpty();
			softly.assertThat(sections.tokenInversions(true)).isEmpty();
			softly.assertThat(sections.lostCount()).isZero();
		});
		assertNothingHeld();
	}

	private void runThreads(Worker worker) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>();
		for (int thread = 0; thread < THREADS; thread++) {
			int id = thread;
			futures.add(this.executor.submit(() -> {
				start.await();
				worker.run(id);
				return null;
			}));
		}
		start.countDown();
		long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
		for (Future<?> future : futures) {
			future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
	}

	private static void increment(StringRedisTemplate data, String counter) {
		String value = data.opsForValue().get(counter);
		long current = (value != null) ? Long.parseLong(value) : 0;
		// Widen the window between read and write now and then.
		if (ThreadLocalRandom.current().nextInt(4) == 0) {
			LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(300)));
		}
		data.opsForValue().set(counter, Long.toString(current + 1));
	}

	/** The counter of a lock shares its slot, and so its primary. */
	private static String counterKey(String name) {
		return "fuzz:{" + name + "}:counter";
	}

	private void assertNothingHeld() {
		for (LockTemplate node : this.nodes) {
			assertThat(this.locks.diagnostics(node).heldCount()).isZero();
			assertThat(this.locks.diagnostics(node).renewedCount()).isZero();
		}
		for (String name : names) {
			try (RedisCli cli = this.locks.primaryOf(name).cli()) {
				assertThat(cli.get(ClusterLocks.lockKey(name))).as(name).isNull();
			}
		}
	}

	@FunctionalInterface
	private interface Worker {

		void run(int thread) throws Exception;

	}

}
