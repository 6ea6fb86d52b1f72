package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.CommandStats;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock that passes between the threads of one JVM keeps passing for as long as no
 * thread of another JVM waits for it: no release and new grant in Redis every few dozen
 * critical sections, only a question to Redis, off the lock's path.
 */
@RedisTest
class HandOverChainTests {

	private static final int THREADS = 4;

	private static final int GRANTS_PER_THREAD = 400;

	private static final long CRITICAL_SECTION_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

	private static final LockRequest LONG_WAIT = LockRequest.of("hot").waitTime(Duration.ofSeconds(20));

	private TwoNodes nodes;

	private LockTemplate template;

	private RedisCli cli;

	private final Object sections = new Object();

	private int inside;

	private int maxInside;

	private long counter;

	/** The fencing tokens of the critical sections, in the order they ran. */
	private final List<Long> tokens = new ArrayList<>();

	@BeforeEach
	void setUp(RedisServer server) {
		this.nodes = new TwoNodes(server, "hand-over-chain-tests");
		this.template = this.nodes.node();
		this.cli = this.nodes.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.nodes.close();
	}

	@Test
	void aLockAloneInItsJvmKeepsPassingBetweenItsThreadsAskingRedisOnly() throws Exception {
		// The first grant, and the subscription of a waiter, before counting
		try (LockHandle handle = this.template.lock(LONG_WAIT)) {
			critical(handle);
		}
		long scriptsBefore = CommandStats.scriptCalls(this.cli);
		CountDownLatch start = new CountDownLatch(THREADS);
		List<CompletableFuture<Void>> loops = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			loops.add(CompletableFuture.runAsync(() -> {
				start.countDown();
				awaitUninterruptibly(start);
				for (int n = 0; n < GRANTS_PER_THREAD; n++) {
					try (LockHandle handle = this.template.lock(LONG_WAIT)) {
						critical(handle);
					}
				}
			}, this.nodes.executor()));
		}
		CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		long scripts = CommandStats.scriptCalls(this.cli) - scriptsBefore;
		int total = THREADS * GRANTS_PER_THREAD;
		assertThat(this.tokens).hasSize(total + 1);
		assertThat(this.maxInside).isEqualTo(1);
		assertThat(this.counter).isEqualTo(total + 1);
		assertThat(this.tokens).isSorted().doesNotHaveDuplicates();
		// A hand-over's token follows the one before it by one; a grant by Redis starts
		// from the server's clock. With a chain ended after 32 hand-overs, no run was
		// longer than that.
		int longestRun = 0;
		int run = 0;
		for (int i = 1; i < this.tokens.size(); i++) {
			run = (this.tokens.get(i) == this.tokens.get(i - 1) + 1) ? run + 1 : 0;
			longestRun = Math.max(longestRun, run);
		}
		assertThat(longestRun).as("most hand-overs in a row; tokens: %s", this.tokens).isGreaterThan(total / 4);
		// And Redis was asked whether others wait about once per 16 hand-overs of them
		// (HandOverChains.CHECK_EVERY).
		assertThat(scripts).as("script calls").isGreaterThanOrEqualTo(longestRun / 16);
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{hot}")).isNull();
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** The work under the lock: the counter, the fencing order, the overlap watch. */
	private void critical(LockHandle handle) {
		synchronized (this.sections) {
			this.inside++;
			this.maxInside = Math.max(this.maxInside, this.inside);
		}
		this.tokens.add(handle.fencingToken());
		long read = this.counter;
		// As long as a critical section of two round trips to a database: long enough for
		// the other threads to be in line when it ends
		LockSupport.parkNanos(CRITICAL_SECTION_NANOS);
		this.counter = read + 1;
		synchronized (this.sections) {
			this.inside--;
		}
	}

}
