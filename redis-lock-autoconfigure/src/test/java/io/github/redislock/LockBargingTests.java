package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.CommandStats;
import io.github.redislock.contract.CriticalSections;
import io.github.redislock.contract.CriticalSections.Section;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Bounded barging: a lock released while a thread of the same JVM waits is left vacant
 * for the first thread of that JVM to ask, until a waiter has waited too long; a vacant
 * lock keeps its grant and fencing order, and is never left held in Redis with nobody to
 * take it. Each test counts under the lock without atomicity and watches for overlaps.
 */
@RedisTest
class LockBargingTests {

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
	void setUp(RedisServer server) {
		this.nodes = new TwoNodes(server, "lock-barging-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.nodes.close();
	}

	/**
	 * Threads that take the lock again the moment they release it would keep it among
	 * themselves: a waiter that waited past the threshold is handed the lock, so every
	 * thread progresses and no wait comes near the time a barger alone would allow.
	 */
	@Test
	void tightLoopOfRelockersServesEveryWaiterWithinABound() throws Exception {
		int threads = 8;
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
		AtomicLong maxWaitNanos = new AtomicLong();
		List<CompletableFuture<Long>> loops = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			loops.add(CompletableFuture.supplyAsync(() -> {
				long done = 0;
				while (System.nanoTime() - end < 0) {
					long askedAt = System.nanoTime();
					try (LockHandle handle = this.nodes.node().lock(LONG_WAIT)) {
						maxWaitNanos.accumulateAndGet(System.nanoTime() - askedAt, Math::max);
						critical(handle);
						done++;
					}
				}
				return done;
			}, this.nodes.executor()));
		}
		List<Long> perThread = new ArrayList<>();
		for (CompletableFuture<Long> loop : loops) {
			perThread.add(loop.get(20, TimeUnit.SECONDS));
		}
		long total = perThread.stream().mapToLong(Long::longValue).sum();
		assertThat(total).isEqualTo(this.grants.get());
		assertThat(perThread).as("grants per thread of %d", total).allSatisfy((done) -> assertThat(done).isPositive());
		assertThat(Duration.ofNanos(maxWaitNanos.get())).as("longest wait, %d grants", total)
			.isLessThan(Duration.ofSeconds(1));
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
			await().atMost(Duration.ofSeconds(5)).until(() -> this.grants.get() - before > 200);
			closing.shutdown(Duration.ofSeconds(2));
			CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
			assertThat(LockKeyValues.holder(this.nodes.cli(), KEY)).isNull();
			try (LockHandle next = this.nodes.otherNode().tryLock("hot", Duration.ZERO).orElseThrow()) {
				critical(next);
			}
		}
		assertExclusiveAndFenced();
	}

	/** Take the lock on the node under test, do the work under it and release it. */
	private long lockAndWork() {
		try (LockHandle handle = this.nodes.node().lock(LONG_WAIT)) {
			return critical(handle);
		}
	}

	/**
	 * Wait for the one waiter to sleep, polling tightly: it is barged only while it is
	 * young.
	 */
	private void awaitTheWaiterAsleep() {
		await().pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofNanos(50_000))
			.atMost(Duration.ofSeconds(5))
			.until(() -> this.nodes.diagnostics(this.nodes.node()).sleepingWaiterCount() == 1);
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
