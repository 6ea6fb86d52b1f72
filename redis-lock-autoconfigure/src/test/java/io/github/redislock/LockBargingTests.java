package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.CriticalSections;
import io.github.redislock.contract.CriticalSections.Section;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A hot lock passed around the threads of one JVM: a thread that releases it and asks
 * again does not barge ahead of the waiters, so every thread gets its share; grants keep
 * their fencing order, and a node that shuts down meanwhile leaves nothing held in Redis.
 * Each test counts under the lock without atomicity and watches for overlaps.
 */
class LockBargingTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final String KEY = "redis-lock:{hot}";

	private static final LockRequest LONG_WAIT = LockRequest.of("hot").waitTime(Duration.ofSeconds(20));

	private TwoNodes nodes;

	private final CriticalSections sections = new CriticalSections();

	/** Counted under the lock without atomicity: exact only if holders never overlap. */
	private long counter;

	/** The last fencing token seen under the lock, to check that tokens only grow. */
	private long lastToken;

	private final AtomicLong grants = new AtomicLong();

	private final AtomicReference<String> fencingError = new AtomicReference<>();

	@BeforeEach
	void setUp() {
		StandaloneLocks locks = topology.fixture();
		locks.flush();
		this.nodes = new TwoNodes(locks, "lock-barging-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.nodes.close();
	}

	/**
	 * Threads that take the lock again the moment they release it would keep it among
	 * themselves if the releasing thread could win the lock back from the waiter it woke;
	 * waiters of one JVM take their turn in arrival order, so every thread gets about an
	 * even share of the grants. A thread that was barged, or whose wake-up was lost,
	 * would get next to none: it would sleep until the holder's 30 s lease ended.
	 */
	@Test
	void tightLoopOfRelockersServesEveryThreadItsShare() throws Exception {
		int threads = 8;
		// The threads start together, so that none misses part of the run.
		CountDownLatch started = new CountDownLatch(threads);
		List<CompletableFuture<Long>> loops = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			loops.add(CompletableFuture.supplyAsync(() -> {
				started.countDown();
				awaitTheOthers(started);
				long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
				long done = 0;
				while (System.nanoTime() - end < 0) {
					try (LockHandle handle = this.nodes.node().lock(LONG_WAIT)) {
						critical(handle);
						done++;
					}
				}
				return done;
			}, this.nodes.executor()));
		}
		List<Long> perThread = new ArrayList<>();
		for (CompletableFuture<Long> loop : loops) {
			perThread.add(loop.get(30, TimeUnit.SECONDS));
		}
		long total = perThread.stream().mapToLong(Long::longValue).sum();
		assertThat(total).isEqualTo(this.grants.get());
		// A quarter of an even share: turns in arrival order give each thread nearly
		// all of it, whatever the machine's speed.
		long share = total / threads / 4;
		assertThat(perThread).as("grants per thread of %d", total)
			.allSatisfy((done) -> assertThat(done).isPositive().isGreaterThanOrEqualTo(share));
		assertExclusiveAndFenced();
		assertThat(LockKeyValues.holder(this.nodes.cli(), KEY)).isNull();
	}

	/**
	 * A node that shuts down while its threads pass a hot lock around, vacant now and
	 * then, leaves nothing held in Redis: another node takes the lock at once.
	 */
	@Test
	void shutdownWhileTheLockPassesAroundLeavesItFree() throws Exception {
		for (int round = 0; round < 5; round++) {
			LockTemplate closing = this.nodes.locks().template();
			long before = this.grants.get();
			List<CompletableFuture<Void>> loops = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				loops.add(CompletableFuture.runAsync(() -> {
					while (true) {
						try (LockHandle handle = closing.lock(LONG_WAIT)) {
							critical(handle);
						}
						catch (LockShutdownException | LockLostException ex) {
							return;
						}
					}
				}, this.nodes.executor()));
			}
			// Shut down while the lock passes around, whatever the pace.
			await().atMost(Duration.ofSeconds(20)).until(() -> this.grants.get() - before > 20);
			closing.shutdown(Duration.ofSeconds(2));
			CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
			assertThat(LockKeyValues.holder(this.nodes.cli(), KEY)).isNull();
			try (LockHandle next = this.nodes.otherNode().tryLock("hot", Duration.ZERO).orElseThrow()) {
				critical(next);
			}
		}
		assertExclusiveAndFenced();
	}

	private static void awaitTheOthers(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** The work under the lock: the counter, the fencing order, the overlap watch. */
	private long critical(LockHandle handle) {
		Section section = this.sections.enter("hot", this, handle.fencingToken());
		long token = handle.fencingToken();
		if (token <= this.lastToken) {
			this.fencingError.compareAndSet(null, "token " + token + " after " + this.lastToken);
		}
		this.lastToken = token;
		long read = this.counter;
		Thread.onSpinWait();
		this.counter = read + 1;
		this.grants.incrementAndGet();
		this.sections.exit(section);
		return token;
	}

	private void assertExclusiveAndFenced() {
		assertThat(this.sections.maxInside("hot")).isEqualTo(1);
		assertThat(this.counter).isEqualTo(this.grants.get());
		assertThat(this.fencingError.get()).isNull();
	}

}
