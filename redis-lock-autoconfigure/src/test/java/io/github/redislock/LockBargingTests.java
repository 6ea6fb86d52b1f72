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
	 * The holder releases and asks again at once while a thread that has just started to
	 * wait sleeps: it takes the lock back without a round trip, with the next token, and
	 * the woken waiter sleeps on at the head of the line. Whether the waiter is still
	 * young enough to be barged depends on scheduling, so this repeats until it was.
	 */
	@Test
	void releasingThreadTakesTheVacantLockBackWhileTheWokenWaiterSleepsOn() throws Exception {
		int barged = 0;
		for (int round = 0; round < 100 && barged < 3; round++) {
			LockHandle first = this.nodes.node().lock(LONG_WAIT);
			long firstToken = first.fencingToken();
			String owner = LockKeyValues.holder(this.nodes.cli(), KEY);
			CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(this::lockAndWork, this.nodes.executor());
			awaitTheWaiterAsleep();
			long roundTrips = CommandStats.roundTrips(this.nodes.cli());
			first.close();
			LockHandle again = this.nodes.node().lock(LONG_WAIT);
			long againToken = critical(again);
			if (againToken == firstToken + 1) {
				barged++;
				// Taken back without Redis, under the same grant, while the waiter waits
				// on.
				assertThat(CommandStats.roundTrips(this.nodes.cli())).isEqualTo(roundTrips);
				assertThat(LockKeyValues.holder(this.nodes.cli(), KEY)).isEqualTo(owner);
				assertThat(waiter).isNotDone();
				await().atMost(Duration.ofSeconds(5))
					.until(() -> this.nodes.diagnostics(this.nodes.node()).sleepingWaiterCount() == 1);
				assertThat(this.nodes.otherNode().tryLock("hot", Duration.ZERO)).isEmpty();
				again.close();
				assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo(firstToken + 2);
			}
			else {
				// The waiter was handed the lock first; then this thread, or Redis
				// granted the lock anew if the waiter released before it queued.
				long waiterToken = waiter.get(5, TimeUnit.SECONDS);
				assertThat(waiterToken).isEqualTo(firstToken + 1);
				assertThat(againToken).isGreaterThan(waiterToken);
				again.close();
			}
			assertThat(LockKeyValues.holder(this.nodes.cli(), KEY)).isNull();
		}
		assertThat(barged).as("rounds in which the releasing thread took the lock back").isEqualTo(3);
		assertExclusiveAndFenced();
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
	 * A waiter that leaves as the lock is left vacant for it (here interrupted, at a
	 * random moment around the release) gives the lock back: to Redis when it was the
	 * last waiter, so the lock is free at once rather than renewed with nobody to take
	 * it.
	 */
	@Test
	void lastWaiterLeavingGivesAVacantLockBack() throws Exception {
		long seed = Long.getLong("redislock.barging.seed", System.nanoTime());
		Random random = new Random(seed);
		for (int round = 0; round < 40; round++) {
			LockHandle first = this.nodes.node().lock(LONG_WAIT);
			AtomicReference<Thread> waiting = new AtomicReference<>();
			CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
				// A pool thread may keep the interrupt of an earlier round that it did
				// not use.
				Thread.interrupted();
				waiting.set(Thread.currentThread());
				return lockAndWork();
			}, this.nodes.executor());
			awaitTheWaiterAsleep();
			if (random.nextBoolean()) {
				waiting.get().interrupt();
				first.close();
			}
			else {
				first.close();
				waiting.get().interrupt();
			}
			try {
				waiter.get(5, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				assertThat(ex).as("seed %d", seed).hasCauseInstanceOf(LockInterruptedException.class);
			}
			await().atMost(Duration.ofSeconds(2))
				.untilAsserted(
						() -> assertThat(LockKeyValues.holder(this.nodes.cli(), KEY)).as("seed %d", seed).isNull());
			try (LockHandle next = this.nodes.otherNode().tryLock("hot", Duration.ZERO).orElseThrow()) {
				critical(next);
			}
		}
		assertExclusiveAndFenced();
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
