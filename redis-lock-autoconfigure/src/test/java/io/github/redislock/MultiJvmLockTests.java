package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three JVMs, four threads each, contend for one lock on a real Redis; the run happens
 * once, and each test checks one property of it. Overlaps are detected in Redis itself,
 * so that they are seen across JVMs.
 */
@TestInstance(Lifecycle.PER_CLASS)
class MultiJvmLockTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final String KEY = "shared-resource";

	private static final List<String> NODES = List.of("jvm-1", "jvm-2", "test-jvm");

	private static final int THREADS = 4;

	private static final int ITERATIONS = 25;

	private static final int TOTAL = NODES.size() * THREADS * ITERATIONS;

	/** How long a JVM may take to start, or to finish once the test JVM is done. */
	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	/**
	 * Most holds in a row one JVM may get while another waits. Once a grant check finds a
	 * thread of another JVM waiting, the grant passes between this JVM's threads at most
	 * 16 more times, then its release goes through Redis and the JVM yields (HandOver's
	 * design note, "Other JVMs get their turn"); before that check, the passes of one
	 * check window (5 ms). Twice 33 allows for both and for a race lost after a release.
	 */
	private static final int MAX_HOLDS_IN_A_ROW_WHILE_OTHERS_WAIT = 2 * 33;

	private final List<JavaProcess> children = new ArrayList<>();

	private final List<Integer> exitCodes = new ArrayList<>();

	private int acquiredHere;

	private String overlaps;

	private String counter;

	private String section;

	private String lockKey;

	/** Node name and fencing token of each hold, in the order the lock was held. */
	private List<String[]> holds;

	/**
	 * The holds, and before them the {@link ContendingNode#asking first asks} of every
	 * thread, in the order they happened.
	 */
	private List<String[]> entries;

	@BeforeAll
	void contend() throws Exception {
		RedisServer server = topology.servers();
		StandaloneLocks locks = topology.fixture();
		locks.flush();
		for (String name : NODES.subList(0, 2)) {
			this.children.add(JavaProcess.start(ContendingNode.class, server.host(), Integer.toString(server.port()),
					KEY, Integer.toString(ITERATIONS), Integer.toString(THREADS), name));
		}
		for (JavaProcess child : this.children) {
			child.awaitOutput("READY", START_TIMEOUT);
		}
		LockTemplate template = locks.template(LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)));
		ContendingNode.warmUp(template, KEY + ":warm-up:test-jvm");
		RedisCli cli = locks.cli();
		cli.command("RPUSH", ContendingNode.START_LIST, "go", "go");
		try {
			this.acquiredHere = contendHere(server, template);
			for (JavaProcess child : this.children) {
				this.exitCodes.add(child.waitFor(START_TIMEOUT));
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("Contention failed; output of the other JVMs:" + outputs(), ex);
		}
		this.overlaps = cli.get(ContendingNode.OVERLAPS);
		this.counter = cli.get(ContendingNode.COUNTER);
		this.section = cli.get(ContendingNode.SECTION);
		this.lockKey = LockKeyValues.holder(cli, "redis-lock:{" + KEY + "}");
		List<?> entries = (List<?>) cli.command("LRANGE", ContendingNode.HOLDERS, "0", "-1");
		this.entries = entries.stream().map((entry) -> ((String) entry).split(" ")).toList();
		this.holds = this.entries.stream().filter((entry) -> !isAsking(entry)).toList();
	}

	@AfterAll
	void closeChildren() {
		this.children.forEach(JavaProcess::close);
	}

	@Test
	void everyJvmAcquiredTheLockEveryTime() {
		for (int i = 0; i < this.children.size(); i++) {
			JavaProcess child = this.children.get(i);
			assertThat(this.exitCodes.get(i)).as(() -> "exit code of " + child + ", output:\n" + child.output())
				.isZero();
			assertThat(child.output()).as(() -> "output of " + child)
				.contains("DONE " + (THREADS * ITERATIONS) + System.lineSeparator());
		}
		assertThat(this.acquiredHere).isEqualTo(THREADS * ITERATIONS);
		assertThat(this.holds).hasSize(TOTAL);
		assertThat(this.holds.stream().map((hold) -> hold[0])).containsOnlyElementsOf(NODES).containsAll(NODES);
		assertThat(this.lockKey).isNull();
	}

	@Test
	void noTwoJvmsHoldTheLockAtOnce() {
		assertThat(this.overlaps).as(() -> "overlaps; " + outputs()).isNull();
		assertThat(this.section).isEqualTo("0");
	}

	@Test
	void noIncrementIsLost() {
		assertThat(this.counter).as(() -> "counter; " + outputs()).isEqualTo(Integer.toString(TOTAL));
	}

	@Test
	void fencingTokensIncreaseInTheOrderTheLockWasHeld() {
		List<Long> tokens = this.holds.stream().map((hold) -> Long.parseLong(hold[1])).toList();
		assertThat(tokens).hasSize(TOTAL).isSorted().doesNotHaveDuplicates();
	}

	/**
	 * A JVM waits from the moment its first thread asked until its last hold, since every
	 * thread asks again as soon as it released: holds of one JVM in a row count only
	 * while another waits, so that a JVM that started late, on a busy machine, is not
	 * taken for one that was kept out.
	 */
	@Test
	void noJvmKeepsTheLockForLongWhileAnotherWaits() {
		Map<String, Integer> firstAsk = new HashMap<>();
		Map<String, Integer> lastHold = new HashMap<>();
		for (int i = 0; i < this.entries.size(); i++) {
			String[] entry = this.entries.get(i);
			if (isAsking(entry)) {
				firstAsk.putIfAbsent(entry[1], i);
			}
			else {
				lastHold.put(entry[0], i);
			}
		}
		assertThat(firstAsk.keySet()).containsExactlyInAnyOrderElementsOf(NODES);
		int longest = 0;
		int inARow = 0;
		String previous = null;
		for (int i = 0; i < this.entries.size(); i++) {
			String[] entry = this.entries.get(i);
			if (isAsking(entry)) {
				continue;
			}
			String holder = entry[0];
			int at = i;
			boolean anotherWaits = NODES.stream()
				.anyMatch((node) -> !node.equals(holder) && firstAsk.get(node) < at
						&& lastHold.getOrDefault(node, -1) > at);
			inARow = (anotherWaits && holder.equals(previous)) ? inARow + 1 : (anotherWaits ? 1 : 0);
			longest = Math.max(longest, inARow);
			previous = holder;
		}
		assertThat(longest)
			.as("most holds in a row by one JVM while another waited; holders in order: %s", runs(this.entries))
			.isLessThanOrEqualTo(MAX_HOLDS_IN_A_ROW_WHILE_OTHERS_WAIT);
	}

	private int contendHere(RedisServer server, LockTemplate template) throws Exception {
		AtomicInteger acquired = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int thread = 0; thread < THREADS; thread++) {
				futures.add(executor.submit(() -> {
					try (RedisCli threadCli = server.cli()) {
						ContendingNode.asking(threadCli, "test-jvm");
						for (int i = 0; i < ITERATIONS; i++) {
							try (LockHandle handle = template.lock(KEY)) {
								ContendingNode.criticalSection(threadCli, "test-jvm", handle.fencingToken());
							}
							acquired.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
			return acquired.get();
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Holders in order, as runs such as "jvm-1 x16, jvm-2 asks, test-jvm x3", with the
	 * first asks of each thread.
	 */
	private static String runs(List<String[]> entries) {
		StringBuilder runs = new StringBuilder();
		String holder = null;
		int count = 0;
		for (String[] entry : entries) {
			if (!isAsking(entry) && entry[0].equals(holder)) {
				count++;
				continue;
			}
			if (holder != null) {
				runs.append(" x").append(count);
			}
			runs.append((runs.length() > 0) ? ", " : "");
			if (isAsking(entry)) {
				runs.append(entry[1]).append(" asks");
				holder = null;
			}
			else {
				runs.append(entry[0]);
				holder = entry[0];
				count = 1;
			}
		}
		if (holder != null) {
			runs.append(" x").append(count);
		}
		return runs.toString();
	}

	private static boolean isAsking(String[] entry) {
		return entry[0].equals(ContendingNode.ASKING);
	}

	private String outputs() {
		StringBuilder outputs = new StringBuilder();
		for (JavaProcess child : this.children) {
			outputs.append(System.lineSeparator()).append(child).append(':').append(System.lineSeparator());
			outputs.append(child.output());
		}
		return outputs.toString();
	}

}
