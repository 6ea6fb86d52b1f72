package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.CommandStats;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock released while a thread of the same JVM waits passes to it under the same grant,
 * the waiter asking Redis for nothing, keeps fencing tokens increasing, and does not
 * starve waiters of other JVMs.
 */
class LockHandOverTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final LockRequest LONG_WAIT = LockRequest.of("hot").waitTime(Duration.ofSeconds(20));

	/**
	 * Within which a waiter gets a lock released to it: long, for a busy machine, yet
	 * shorter than the 20 s wait and the 30 s lease that a waiter never woken would sit
	 * out.
	 */
	private static final Duration WOKEN = Duration.ofSeconds(15);

	private TwoNodes nodes;

	@BeforeEach
	void setUp() {
		StandaloneLocks locks = topology.fixture();
		locks.flush();
		this.nodes = new TwoNodes(locks, "lock-hand-over-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.nodes.close();
	}

	/**
	 * A pass needs a check that Redis answered within its window, which a busy machine
	 * may miss, so this repeats until the lock passed: it then cost the releasing
	 * thread's check and nothing else, kept the grant in Redis and gave the next token.
	 */
	@Test
	void releasePassesTheLockToALocalWaiterUnderTheSameGrantWithOneCheck() throws Exception {
		int passed = 0;
		for (int round = 0; round < 20 && passed < 2; round++) {
			LockHandle first = this.nodes.node().lock("hot");
			String owner = LockKeyValues.holder(this.nodes.cli(), "redis-lock:{hot}");
			CompletableFuture<LockHandle> waiter = CompletableFuture
				.supplyAsync(() -> this.nodes.node().lock(LONG_WAIT), this.nodes.executor());
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.nodes.diagnostics(this.nodes.node()).sleepingWaiterCount() == 1);
			long roundTrips = CommandStats.roundTrips(this.nodes.cli());
			first.close();
			LockHandle second = waiter.get(WOKEN.toSeconds(), TimeUnit.SECONDS);
			long spent = CommandStats.roundTrips(this.nodes.cli()) - roundTrips;
			assertThat(second.isHeld()).isTrue();
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
			if (second.fencingToken() == first.fencingToken() + 1 && round > 0) {
				passed++;
				// The releasing thread's check that Redis still held the grant, and
				// nothing else (after the first round, which sends Redis the script).
				assertThat(spent).isEqualTo(1);
				assertThat(LockKeyValues.holder(this.nodes.cli(), "redis-lock:{hot}")).isEqualTo(owner);
				assertThat(this.nodes.otherNode().tryLock("hot", Duration.ZERO)).isEmpty();
			}
			second.close();
			assertThat(LockKeyValues.holder(this.nodes.cli(), "redis-lock:{hot}")).isNull();
			try (LockHandle next = this.nodes.otherNode().lock("hot")) {
				assertThat(next.fencingToken()).isGreaterThan(second.fencingToken());
			}
		}
		assertThat(passed).as("rounds in which the lock passed to the waiter").isEqualTo(2);
	}

	@Test
	void waiterWithAFixedLeaseGetsItsOwnGrant() throws Exception {
		LockHandle first = this.nodes.node().lock("hot");
		LockRequest fixed = LONG_WAIT.leaseTime(Duration.ofSeconds(5));
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> this.nodes.node().lock(fixed),
				this.nodes.executor());
		awaitOneWaiter(this.nodes.node());
		String firstOwner = LockKeyValues.holder(this.nodes.cli(), "redis-lock:{hot}");
		first.close();
		LockHandle second = waiter.get(WOKEN.toSeconds(), TimeUnit.SECONDS);
		assertThat(LockKeyValues.holder(this.nodes.cli(), "redis-lock:{hot}")).isNotEqualTo(firstOwner);
		assertThat(this.nodes.cli().pttl("redis-lock:{hot}")).isBetween(1L, 5000L);
		second.close();
	}

	@Test
	void waiterInAnotherJvmIsNotStarvedByAHotLocalLoop() throws Exception {
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong localGrants = new AtomicLong();
		List<CompletableFuture<Void>> loops = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			loops.add(CompletableFuture.runAsync(() -> {
				while (running.get()) {
					try (LockHandle handle = this.nodes.node().lock(LONG_WAIT)) {
						localGrants.incrementAndGet();
					}
				}
			}, this.nodes.executor()));
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> localGrants.get() > 100);
		try {
			for (int i = 0; i < 50; i++) {
				// A starved waiter would sit out its wait, and lock() would throw.
				try (LockHandle remote = this.nodes.otherNode()
					.lock(LockRequest.of("hot").waitTime(Duration.ofSeconds(10)))) {
					assertThat(remote.isHeld()).isTrue();
				}
			}
			// The local loop competed throughout: none of its threads stopped.
			assertThat(loops).noneMatch(CompletableFuture::isDone);
		}
		finally {
			running.set(false);
			CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
		}
	}

	/**
	 * A node that waited for a lock once stays subscribed to it for a while; that alone
	 * must not make another node hold back from a lock it just released.
	 */
	@Test
	void idleSubscriberElsewhereDoesNotMakeAReleaserYield() throws Exception {
		LockHandle held = this.nodes.node().lock("hot");
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> this.nodes.otherNode().lock(LONG_WAIT), this.nodes.executor());
		awaitOneWaiter(this.nodes.otherNode());
		held.close();
		waiter.get(WOKEN.toSeconds(), TimeUnit.SECONDS).close();
		assertThat(this.nodes.diagnostics(this.nodes.otherNode()).subscribedChannelCount()).isOne();
		LockRequest fixed = LockRequest.of("hot").leaseTime(Duration.ofSeconds(5));
		for (int i = 0; i < 20; i++) {
			this.nodes.node().lock(fixed).close();
			assertThat(this.nodes.node().tryLock(fixed.waitTime(Duration.ZERO))).as("lock %d taken again at once", i)
				.hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * A node whose thread was refused the lock gets it after the holder elsewhere
	 * releases, even though the releasing node asks again at once.
	 */
	@Test
	void releaserYieldsToARefusedWaiterElsewhere() throws Exception {
		// Long enough to outlast a busy machine's slowest wait for the waiter to sleep.
		LockRequest fixed = LockRequest.of("hot").leaseTime(Duration.ofSeconds(30));
		LockHandle held = this.nodes.node().lock(fixed);
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> this.nodes.otherNode().lock(LONG_WAIT), this.nodes.executor());
		awaitOneWaiter(this.nodes.otherNode());
		held.close();
		// An attempt that can wait yields; one without wait would ask Redis at once.
		assertThat(this.nodes.node().tryLock(fixed.waitTime(Duration.ofMillis(20)))).isEmpty();
		try (LockHandle remote = waiter.get(WOKEN.toSeconds(), TimeUnit.SECONDS)) {
			assertThat(remote.isHeld()).isTrue();
		}
	}

	private void awaitOneWaiter(LockTemplate node) {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.nodes.diagnostics(node).sleepingWaiterCount() == 1);
	}

}
