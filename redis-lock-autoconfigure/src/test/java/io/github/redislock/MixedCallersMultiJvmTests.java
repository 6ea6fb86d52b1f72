package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two JVMs, this one and a child, each with blocking threads and reactive chains on one
 * engine, take the same two locks at once (see {@link MixedCallersNode}): no two callers
 * of any kind, in either JVM, ever hold a lock together. The run happens once, and each
 * test checks one property of it. The locks taken and the sections' lengths come from a
 * seed, printed with every failure; run again with {@code -Dredislock.mixed.seed=<seed>}.
 */
@RedisTest
@TestInstance(Lifecycle.PER_CLASS)
class MixedCallersMultiJvmTests {

	private static final long SEED = Long.getLong("redislock.mixed.seed", ThreadLocalRandom.current().nextLong());

	private static final List<String> NODES = List.of("jvm-1", "test-jvm");

	private static final List<String> CALLERS = List.of("jvm-1/blocking", "jvm-1/reactive", "test-jvm/blocking",
			"test-jvm/reactive");

	/** How long the child may take to start, or to finish once this JVM is done. */
	private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	private JavaProcess child;

	private int childExitCode;

	private int grantedHere;

	private List<String> overlaps;

	private List<String> stale;

	private final Map<String, Long> counters = new HashMap<>();

	private final Map<String, Long> grants = new HashMap<>();

	/** Who held each lock with which token ("jvm-1/reactive 42"), in the order held. */
	private final Map<String, List<String[]>> holds = new HashMap<>();

	private final Map<String, String> leftOver = new HashMap<>();

	@BeforeAll
	void contend(RedisServer server) throws Exception {
		System.out.println(getClass().getSimpleName() + " seed " + SEED);
		this.child = JavaProcess.start(MixedCallersNode.class, server.host(), Integer.toString(server.port()),
				NODES.get(0), Long.toString(SEED + 1));
		try (RedisCli cli = server.cli();
				MixedCallersNode here = new MixedCallersNode(server.host(), server.port(), NODES.get(1))) {
			this.child.awaitOutput("READY", START_TIMEOUT);
			cli.command("RPUSH", MixedCallersNode.START_LIST, "go");
			try {
				long start = System.nanoTime();
				this.grantedHere = here.contend(SEED);
				this.childExitCode = this.child.waitFor(START_TIMEOUT);
				System.out.println(getClass().getSimpleName() + " contended for "
						+ Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
			}
			catch (Exception ex) {
				throw new IllegalStateException(
						seed() + "; the run failed; output of the child JVM:\n" + this.child.output(), ex);
			}
			this.overlaps = list(cli, MixedCallersNode.OVERLAPS);
			this.stale = list(cli, MixedCallersNode.STALE);
			for (String key : MixedCallersNode.KEYS) {
				this.counters.put(key, number(cli.get(MixedCallersNode.counter(key))));
				this.grants.put(key, number(cli.get(MixedCallersNode.grants(key))));
				this.holds.put(key,
						list(cli, MixedCallersNode.holds(key)).stream().map((hold) -> hold.split(" ")).toList());
				this.leftOver.put(key, LockKeyValues.holder(cli, "redis-lock:{" + key + "}"));
				this.leftOver.put(MixedCallersNode.inside(key), cli.get(MixedCallersNode.inside(key)));
			}
		}
	}

	@AfterAll
	void closeChild() {
		if (this.child != null) {
			this.child.close();
		}
	}

	@Test
	void everyCallerWasGrantedEveryLockItAskedFor() {
		assertThat(this.childExitCode).as(() -> seed() + "; exit code, output:\n" + this.child.output()).isZero();
		assertThat(this.child.output()).as(this::seed)
			.contains("DONE " + MixedCallersNode.OPERATIONS + System.lineSeparator());
		assertThat(this.grantedHere).as(this::seed).isEqualTo(MixedCallersNode.OPERATIONS);
		assertThat(this.grants.values().stream().mapToLong(Long::longValue).sum()).as(this::seed)
			.isEqualTo(NODES.size() * MixedCallersNode.OPERATIONS);
	}

	@Test
	void noTwoCallersHeldALockAtOnce() {
		assertThat(this.overlaps).as(this::seed).isEmpty();
	}

	@Test
	void noIncrementIsLost() {
		assertThat(this.counters).as(this::seed).isEqualTo(this.grants);
	}

	@Test
	void fencingTokensIncreaseInTheOrderEachLockWasHeld() {
		assertThat(this.stale).as(this::seed).isEmpty();
		this.holds.forEach((key, holds) -> {
			List<Long> tokens = holds.stream().map((hold) -> Long.parseLong(hold[1])).toList();
			assertThat(tokens).as(() -> seed() + "; tokens of " + key).isSorted().doesNotHaveDuplicates();
			assertThat(tokens).as(this::seed).hasSize(this.grants.get(key).intValue());
		});
	}

	/**
	 * Each lock passed from blocking to reactive callers and back, and from each JVM to
	 * the other, so that the other tests saw them contend, not run one after another.
	 */
	@Test
	void blockingAndReactiveCallersOfBothJvmsTookTurns() {
		this.holds.forEach((key, holds) -> {
			List<String> holders = holds.stream().map((hold) -> hold[0]).toList();
			assertThat(holders).as(() -> seed() + "; holders of " + key).containsAll(CALLERS);
			List<String> nodeTurns = new ArrayList<>();
			List<String> kindTurns = new ArrayList<>();
			for (int i = 1; i < holders.size(); i++) {
				String[] from = holders.get(i - 1).split("/");
				String[] to = holders.get(i).split("/");
				nodeTurns.add(from[0] + " > " + to[0]);
				kindTurns.add(from[1] + " > " + to[1]);
			}
			assertThat(nodeTurns).as(() -> seed() + "; holders of " + key + ": " + holders)
				.contains("jvm-1 > test-jvm", "test-jvm > jvm-1");
			assertThat(kindTurns).as(() -> seed() + "; holders of " + key + ": " + holders)
				.contains("blocking > reactive", "reactive > blocking");
		});
	}

	@Test
	void nothingIsLeftLocked() {
		assertThat(this.leftOver).as(this::seed).allSatisfy((key, value) -> assertThat(value).as(key).isNull());
	}

	private String seed() {
		return "seed " + SEED + " (-Dredislock.mixed.seed=" + SEED + ")";
	}

	private static List<String> list(RedisCli cli, String key) {
		List<?> entries = (List<?>) cli.command("LRANGE", key, "0", "-1");
		return entries.stream().map(String.class::cast).toList();
	}

	private static long number(String value) {
		return (value != null) ? Long.parseLong(value) : 0;
	}

}
