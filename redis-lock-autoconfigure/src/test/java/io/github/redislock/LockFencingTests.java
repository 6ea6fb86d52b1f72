package io.github.redislock;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens increase with every grant of a key, across nodes and after the key's
 * entries expired, while Redis keeps no entry of an idle lock forever.
 */
@RedisTest
class LockFencingTests {

	private StandaloneLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	private RedisCli cli;

	@BeforeEach
	void setUp(RedisServer server) {
		this.locks = new StandaloneLocks(server);
		this.template = this.locks.template();
		this.otherNode = this.locks.template();
		this.cli = this.locks.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void everyGrantCarriesAGreaterToken() {
		long previous = 0;
		for (int i = 0; i < 200; i++) {
			LockTemplate node = (i % 2 == 0) ? this.template : this.otherNode;
			try (LockHandle handle = node.lock("order:1")) {
				assertThat(handle.fencingToken()).isGreaterThan(previous);
				previous = handle.fencingToken();
			}
		}
	}

	@Test
	void tokenKeepsIncreasingAfterTheLocksEntriesExpired() {
		long first;
		try (LockHandle handle = this.template.lock("order:1")) {
			first = handle.fencingToken();
		}
		// What expiry of the lock and fence keys leaves behind: nothing.
		this.cli.command("DEL", "redis-lock:{order:1}", "redis-lock:{order:1}:fence");
		try (LockHandle handle = this.otherNode.lock("order:1")) {
			assertThat(handle.fencingToken()).isGreaterThan(first);
		}
	}

	@Test
	void tokenIsGreaterThanTheLastEvenWhenTheServerClockIsBehindIt() {
		long ahead = Long.parseLong(String.valueOf(serverMicros())) + 3_600_000_000L;
		this.cli.command("SET", "redis-lock:{order:1}:fence", Long.toString(ahead), "PX", "60000");
		try (LockHandle handle = this.template.lock("order:1")) {
			assertThat(handle.fencingToken()).isEqualTo(ahead + 1);
		}
	}

	@Test
	void releasedLockLeavesOnlyAFenceKeyAndAReleaseMarkThatExpire() {
		try (LockHandle handle = this.template.lock("order:1")) {
			assertThat(this.cli.pttl("redis-lock:{order:1}")).isPositive();
		}
		assertThat(this.cli.keys("*")).hasSize(2)
			.contains("redis-lock:{order:1}:fence")
			.anySatisfy((key) -> assertThat(key).startsWith("redis-lock:{order:1}:released:"));
		for (String key : this.cli.keys("*")) {
			assertThat(this.cli.pttl(key)).as(key).isBetween(1L, 61_000L);
		}
	}

	@SuppressWarnings("unchecked")
	private long serverMicros() {
		List<Object> time = (List<Object>) this.cli.command("TIME");
		return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
	}

}
