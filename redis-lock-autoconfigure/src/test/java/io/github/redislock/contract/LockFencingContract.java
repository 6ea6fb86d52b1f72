package io.github.redislock.contract;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens increase with every grant of a key, across nodes, on every primary and
 * after the key's entries expired, while Redis keeps no entry of an idle lock forever. An
 * exclusive lock keeps its last token in its lock key: the tombstone a release leaves.
 */
interface LockFencingContract extends LockContract {

	/** Every grant of a lock carries a greater fencing token, whichever node takes it. */
	@Test
	default void everyGrantCarriesAGreaterTokenAcrossNodes() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		for (String name : locks().names("order", 1)) {
			long previous = 0;
			for (int i = 0; i < 200; i++) {
				LockTemplate node = (i % 2 == 0) ? template : otherNode;
				try (LockHandle handle = node.lock(name)) {
					assertThat(handle.fencingToken()).as(name).isGreaterThan(previous);
					previous = handle.fencingToken();
				}
			}
		}
	}

	@Test
	default void tokenKeepsIncreasingAfterTheLocksEntriesExpired() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		long first;
		try (LockHandle handle = template.lock("order:1")) {
			first = handle.fencingToken();
		}
		// What expiry of the lock key and its tombstone leaves behind: nothing.
		locks().cli("order:1").command("DEL", "redis-lock:{order:1}");
		try (LockHandle handle = otherNode.lock("order:1")) {
			assertThat(handle.fencingToken()).isGreaterThan(first);
		}
	}

	@Test
	default void tokenIsGreaterThanTheLastEvenWhenTheServerClockIsBehindIt() {
		LockTemplate template = locks().template();
		RedisCli cli = locks().cli("order:1");
		long ahead = serverMicros(cli) + 3_600_000_000L;
		// As a release leaves it: the last owner and token, and how long the release
		// stays
		// known.
		cli.command("SET", "redis-lock:{order:1}", "r|gone:1|" + ahead + "|1000", "PX", "60000");
		try (LockHandle handle = template.lock("order:1")) {
			assertThat(handle.fencingToken()).isEqualTo(ahead + 1);
		}
	}

	@Test
	default void releasedLockLeavesOnlyItsTombstoneWithTheLastTokenThatExpires() {
		LockTemplate template = locks().template();
		RedisCli cli = locks().cli("order:1");
		long token;
		try (LockHandle handle = template.lock("order:1")) {
			assertThat(cli.pttl("redis-lock:{order:1}")).isPositive();
			token = handle.fencingToken();
		}
		assertThat(cli.keys("*")).containsExactly("redis-lock:{order:1}");
		assertThat(LockKeyValues.isTombstone(cli.get("redis-lock:{order:1}"))).isTrue();
		assertThat(LockKeyValues.token(cli.get("redis-lock:{order:1}"))).isEqualTo(token);
		assertThat(cli.pttl("redis-lock:{order:1}")).isBetween(1L, 61_000L);
	}

	/**
	 * The next grant replaces the tombstone and keeps the release mark of its owner, for
	 * a release that runs again, no longer than the client may send it.
	 */
	@Test
	default void grantAfterAReleaseLeavesTheLockKeyAndAReleaseMarkThatExpires() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		RedisCli cli = locks().cli("order:1");
		template.lock("order:1").close();
		try (LockHandle handle = otherNode.lock("order:1")) {
			assertThat(cli.keys("*")).hasSize(2)
				.contains("redis-lock:{order:1}")
				.anySatisfy((key) -> assertThat(key).startsWith("redis-lock:{order:1}:released:"));
			for (String key : cli.keys("*")) {
				assertThat(cli.pttl(key)).as(key).isBetween(1L, 61_000L);
			}
		}
	}

	@SuppressWarnings("unchecked")
	private static long serverMicros(RedisCli cli) {
		List<Object> time = (List<Object>) cli.command("TIME");
		return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
	}

}
