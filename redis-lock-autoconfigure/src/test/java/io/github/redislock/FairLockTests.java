package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fair locks with waiters in other JVMs: they get the lock in the order they queued in
 * Redis, a waiter that dies leaves the queue without holding up the ones behind it, and a
 * newcomer does not overtake the queue. Fair locks within one JVM are part of the lock's
 * contract, which every topology runs: see {@code FairLockContract}.
 */
class FairLockTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final String KEY = "ticket";

	/** The queue of the fair lock {@value #KEY}, with the default prefix. */
	private static final String QUEUE = "redis-lock:{ticket}:queue";

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/**
	 * Time a child JVM has to start, connect and take its first lock: seconds on a quiet
	 * machine, far more when several start at once on two busy cores.
	 */
	private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	private RedisServer server;

	private StandaloneLocks locks;

	private LockTemplate holderNode;

	private List<LockTemplate> waiterNodes;

	private RedisCli cli;

	private ExecutorService executor;

	private final List<JavaProcess> children = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.server = topology.servers();
		this.locks = topology.fixture();
		this.locks.flush();
		this.holderNode = this.locks.template();
		this.waiterNodes = List.of(this.locks.template(), this.locks.template());
		this.cli = this.locks.cli();
		this.executor = LockFixture.executor("fair-lock-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.children.forEach(JavaProcess::close);
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	/**
	 * An exclusive lock shares its key with the fair lock of the same name: a waiter for
	 * it, refused by a fair holder with a long lease, is woken by the fair release when
	 * nobody queues for the fair lock, in another JVM and in the releasing one, rather
	 * than sleep until that lease would have ended.
	 */
	@Test
	void fairReleaseWithNobodyQueuedWakesExclusiveWaitersOfTheSameName() throws Exception {
		LockHandle fair = this.holderNode.lock(LockRequest.of(KEY).fair(true));
		LockRequest exclusive = LockRequest.of(KEY).waitTime(TIMEOUT);
		CompletableFuture<Long> elsewhere = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = this.waiterNodes.get(0).lock(exclusive)) {
				return handle.fencingToken();
			}
		}, this.executor);
		CompletableFuture<Long> here = CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = this.holderNode.lock(exclusive)) {
				return handle.fencingToken();
			}
		}, this.executor);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.locks.diagnostics(this.waiterNodes.get(0)).sleepingWaiterCount() == 1
					&& this.locks.diagnostics(this.holderNode).sleepingWaiterCount() == 1);
		fair.close();
		// The fair holder's watchdog lease (30 s) would end long after this.
		assertThat(elsewhere.get(10, TimeUnit.SECONDS)).isGreaterThan(fair.fencingToken());
		assertThat(here.get(10, TimeUnit.SECONDS)).isGreaterThan(fair.fencingToken());
	}

	@Test
	void waitersOfThreeJvmsGetTheLockInTheOrderRedisQueuedThem() {
		List<String> jvms = List.of("jvm-a", "jvm-b", "jvm-c");
		int threadsPerJvm = 4;
		String grants = "fair-test:grants";
		for (String jvm : jvms) {
			this.children.add(JavaProcess.start(FairWaitingNode.class, this.server.host(),
					Integer.toString(this.server.port()), KEY, commands(jvm), grants));
		}
		this.children.forEach((child) -> child.awaitOutput("READY", START_TIMEOUT));
		List<String[]> asks = new ArrayList<>();
		for (String jvm : jvms) {
			for (int thread = 0; thread < threadsPerJvm; thread++) {
				asks.add(new String[] { jvm, jvm + "/" + thread });
			}
		}
		// An order that interleaves the JVMs irregularly, the same on every run.
		Collections.shuffle(asks, new Random(8));
		Map<String, String> labelsByOwner = new LinkedHashMap<>();
		List<String> queued;
		try (LockHandle holder = this.holderNode.lock(fair())) {
			for (String[] ask : asks) {
				int before = queueLength();
				this.cli.command("RPUSH", commands(ask[0]), "lock " + ask[1] + " " + TIMEOUT.toMillis());
				awaitQueueLength(before + 1);
				labelsByOwner.put((String) this.cli.command("LINDEX", QUEUE, "-1"), ask[1]);
			}
			// The enqueue order as Redis recorded it, by label.
			queued = lrange(QUEUE).stream().map(labelsByOwner::get).toList();
		}
		await().atMost(TIMEOUT).until(() -> lrange(grants).size() == asks.size());
		List<String> granted = lrange(grants).stream().map((grant) -> grant.split(" ")[0]).toList();
		List<Long> tokens = lrange(grants).stream().map((grant) -> Long.parseLong(grant.split(" ")[1])).toList();
		assertThat(queued).containsExactlyElementsOf(asks.stream().map((ask) -> ask[1]).toList());
		assertThat(granted).containsExactlyElementsOf(queued);
		assertThat(tokens).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
	}

	@Test
	void killedQueuedWaiterDelaysTheNextOneNoLongerThanItsOwnWaitTime() throws Exception {
		Duration killedWait = Duration.ofSeconds(3);
		String grants = "fair-test:grants";
		JavaProcess doomed = JavaProcess.start(FairWaitingNode.class, this.server.host(),
				Integer.toString(this.server.port()), KEY, commands("doomed"), grants);
		this.children.add(doomed);
		doomed.awaitOutput("READY", START_TIMEOUT);
		LockHandle holder = this.holderNode.lock(fair());
		Future<Long> next;
		long killedEnqueued;
		try {
			this.cli.command("RPUSH", commands("doomed"), "lock doomed " + killedWait.toMillis());
			awaitQueueLength(1);
			killedEnqueued = System.nanoTime();
			// Queued behind the doomed waiter, with a wait far longer than its.
			next = this.executor.submit(() -> {
				try (LockHandle handle = this.waiterNodes.get(0).lock(fair().waitTime(TIMEOUT))) {
					return System.nanoTime();
				}
			});
			awaitQueueLength(2);
			doomed.kill();
		}
		finally {
			holder.close();
		}
		Duration enqueueToGrant = Duration.ofNanos(next.get(30, TimeUnit.SECONDS) - killedEnqueued);
		assertThat(enqueueToGrant).isLessThanOrEqualTo(killedWait.plus(MARGIN));
		assertThat(lrange(grants)).isEmpty();
	}

	@Test
	void newcomerDoesNotOvertakeTheQueue() {
		String grants = "fair-test:grants";
		JavaProcess queued = JavaProcess.start(FairWaitingNode.class, this.server.host(),
				Integer.toString(this.server.port()), KEY, commands("queued"), grants);
		this.children.add(queued);
		queued.awaitOutput("READY", START_TIMEOUT);
		try (LockHandle holder = this.holderNode.lock(fair())) {
			this.cli.command("RPUSH", commands("queued"), "lock queued " + TIMEOUT.toMillis());
			awaitQueueLength(1);
			// Paused, the head of the queue cannot take the lock the release frees.
			queued.pause();
		}
		try {
			assertThat(this.waiterNodes.get(0).tryLock(fair().waitTime(Duration.ZERO))).isEmpty();
		}
		finally {
			queued.resume();
		}
		await().atMost(TIMEOUT).until(() -> lrange(grants).size() == 1);
		assertThat(lrange(grants).get(0)).startsWith("queued ");
	}

	private static LockRequest fair() {
		return LockRequest.of(KEY).fair(true);
	}

	private static String commands(String jvm) {
		return "fair-test:commands:" + jvm;
	}

	private int queueLength() {
		return Math.toIntExact((Long) this.cli.command("LLEN", QUEUE));
	}

	private void awaitQueueLength(int length) {
		await().atMost(Duration.ofSeconds(30)).until(() -> queueLength() == length);
	}

	@SuppressWarnings("unchecked")
	private List<String> lrange(String key) {
		return (List<String>) this.cli.command("LRANGE", key, "0", "-1");
	}

}
