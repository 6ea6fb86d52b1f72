package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code renew.lua} on its own: a batch of leases of every kind, each renewed only while
 * its owner holds it, and a lone lease as a batch of one.
 */
@RedisTest
class RenewScriptTests {

	private static final String EXCLUSIVE = "test:{exclusive}";

	private static final String FAIR = "test:{fair}";

	private static final String READERS = "test:{read}:rw";

	private static final long HOUR = 3_600_000;

	private TestScripts scripts;

	private RedisCli cli;

	@BeforeEach
	void setUp(RedisServer server) {
		this.scripts = new TestScripts(server, "test:");
		this.cli = this.scripts.cli();
		this.cli.command("SET", EXCLUSIVE, "h|node:1|7", "PX", "1000");
		this.cli.command("SET", FAIR, "node:2", "PX", "1000");
		long now = serverMillis();
		this.cli.command("HSET", READERS, "mode", "read", "node:3", Long.toString(now + 1000), "node:4",
				Long.toString(now + HOUR));
		this.cli.command("PEXPIRE", READERS, Long.toString(HOUR));
	}

	@AfterEach
	void tearDown() {
		this.scripts.close();
	}

	@Test
	void aBatchRenewsEveryKindOfLeaseItsOwnerHolds() {
		assertThat(renew(EXCLUSIVE, "k", "node:1", FAIR, "k", "node:2", READERS, "h", "node:3"))
			.isEqualTo(List.of(1L, 1L, 1L));
		assertThat(this.cli.pttl(EXCLUSIVE)).isBetween(50_000L, 60_000L);
		assertThat(this.cli.pttl(FAIR)).isBetween(50_000L, 60_000L);
		assertThat(holderLeaseLeft("node:3")).isBetween(50_000L, 60_000L);
		assertThat(this.cli.get(EXCLUSIVE)).isEqualTo("h|node:1|7");
	}

	@Test
	void eachLeaseOfABatchIsRenewedOnlyForItsOwnOwner() {
		this.cli.command("DEL", "test:{gone}");
		assertThat(renew(EXCLUSIVE, "k", "node:", FAIR, "k", "node:1", READERS, "h", "node:9", "test:{gone}", "k",
				"node:1", EXCLUSIVE, "k", "node:1"))
			.isEqualTo(List.of(0L, 0L, 0L, 0L, 1L));
		assertThat(this.cli.pttl(FAIR)).isLessThanOrEqualTo(1000L);
		assertThat(this.cli.keys("test:{gone}")).isEmpty();
	}

	@Test
	void aReaderWhoseLeaseEndedIsNotRenewed() {
		this.cli.command("HSET", READERS, "node:3", Long.toString(serverMillis() - 1));
		assertThat(renew(READERS, "h", "node:3", READERS, "h", "node:4")).isEqualTo(List.of(0L, 1L));
		assertThat(holderLeaseLeft("node:3")).isNegative();
	}

	@Test
	void aKeyOfAnotherTypeLosesItsOwnLeaseAndNoOther() {
		this.cli.command("DEL", FAIR);
		this.cli.command("HSET", FAIR, "not", "a lock");
		this.cli.command("DEL", READERS);
		this.cli.command("SET", READERS, "node:3");
		assertThat(renew(FAIR, "k", "node:2", READERS, "h", "node:3", EXCLUSIVE, "k", "node:1"))
			.isEqualTo(List.of(0L, 0L, 1L));
		assertThat(renew(FAIR, "k", "node:2")).isEqualTo(0L);
	}

	@Test
	void aBatchOfOneIsAnsweredWithTheNumberAlone() {
		assertThat(renew(EXCLUSIVE, "k", "node:1")).isEqualTo(1L);
		assertThat(renew(EXCLUSIVE, "k", "node:2")).isEqualTo(0L);
	}

	@Test
	void aShorterReadLeaseLeavesTheOtherReadersKeyAsLongAsTheirs() {
		assertThat(renew(READERS, "h", "node:4")).isEqualTo(1L);
		assertThat(renewFor(100, READERS, "h", "node:3")).isEqualTo(1L);
		assertThat(holderLeaseLeft("node:3")).isBetween(0L, 100L);
		assertThat(this.cli.pttl(READERS)).isGreaterThan(HOUR - 60_000);
	}

	@Test
	void runningABatchTwiceSetsTheSameLeasesAgain() {
		List<?> first = (List<?>) renew(EXCLUSIVE, "k", "node:1", READERS, "h", "node:3");
		List<?> second = (List<?>) renew(EXCLUSIVE, "k", "node:1", READERS, "h", "node:3");
		assertThat(second).isEqualTo(first).isEqualTo(List.of(1L, 1L));
		assertThat(this.cli.get(EXCLUSIVE)).isEqualTo("h|node:1|7");
		assertThat(this.cli.command("HLEN", READERS)).isEqualTo(3L);
	}

	@Test
	void theEngineRenewsALoneLeaseOfEachKind() {
		assertThat(this.scripts.renew("exclusive", "node:1", 60_000)).isTrue();
		LockScripts engine = this.scripts.lockScripts();
		assertThat(engine.renew(new LockLease(LockKind.FAIR, "fair", "node:2", 1, 60_000, true, System.nanoTime())))
			.isTrue();
		assertThat(engine.renew(new LockLease(LockKind.READ, "read", "node:3", 1, 60_000, true, System.nanoTime())))
			.isTrue();
		assertThat(engine.renew(new LockLease(LockKind.WRITE, "read", "node:5", 1, 60_000, true, System.nanoTime())))
			.isFalse();
	}

	/** Renew each key for a minute, with its mode and owner following it. */
	private Object renew(String... leases) {
		return renewFor(60_000, leases);
	}

	private Object renewFor(long leaseMillis, String... leases) {
		List<String> command = new ArrayList<>(
				List.of("EVAL", LockScripts.RENEW_BATCH.getScriptAsString(), Integer.toString(leases.length / 3)));
		List<String> args = new ArrayList<>();
		for (int i = 0; i < leases.length; i += 3) {
			command.add(leases[i]);
			args.addAll(List.of(leases[i + 1], leases[i + 2], Long.toString(leaseMillis)));
		}
		command.addAll(args);
		return this.cli.command(command.toArray(String[]::new));
	}

	private long holderLeaseLeft(String owner) {
		return Long.parseLong((String) this.cli.command("HGET", READERS, owner)) - serverMillis();
	}

	private long serverMillis() {
		List<?> time = (List<?>) this.cli.command("TIME");
		return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
	}

}
