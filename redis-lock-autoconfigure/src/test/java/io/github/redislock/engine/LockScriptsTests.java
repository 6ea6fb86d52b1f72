package io.github.redislock.engine;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.engine.Acquisition.Attempt;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Lua scripts on their own: what each one changes in Redis and replies.
 */
@RedisTest
class LockScriptsTests {

	private TestScripts scripts;

	@BeforeEach
	void setUp(RedisServer server) {
		this.scripts = new TestScripts(server, "test:");
	}

	@AfterEach
	void tearDown() {
		this.scripts.close();
	}

	@Test
	void acquireOfAFreeLockStoresTheOwnerAndTokenWithTheLeaseInOneKey() {
		Attempt attempt = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(attempt.granted()).isTrue();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|node:1|" + attempt.fencingToken());
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isBetween(4000L, 5000L);
		assertThat(this.scripts.cli().keys("*")).containsExactly("test:{order:1}");
	}

	/**
	 * The stored token is written from the server time's two parts: the microseconds keep
	 * their leading zeros (one grant in ten has some).
	 */
	@Test
	void storedTokenIsTheGrantedOne() {
		for (int i = 0; i < 200; i++) {
			Attempt attempt = this.scripts.acquire("order:" + i, "node:1", 5000);
			assertThat(this.scripts.cli().get("test:{order:" + i + "}"))
				.isEqualTo("h|node:1|" + attempt.fencingToken());
		}
	}

	@Test
	void acquireOfAHeldLockRepliesWithTheHoldersLeaseLeft() {
		this.scripts.acquire("order:1", "node:1", 5000);
		Attempt attempt = this.scripts.acquire("order:1", "node:2", 5000);
		assertThat(attempt.granted()).isFalse();
		assertThat(attempt.holderLeaseMillis()).isBetween(4000L, 5000L);
		assertThat(LockKeyValues.holder(this.scripts.cli(), "test:{order:1}")).isEqualTo("node:1");
	}

	@Test
	void acquireOfALockWithoutExpiryRepliesMinusOne() {
		this.scripts.cli().command("SET", "test:{order:1}", "by-hand");
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).holderLeaseMillis()).isEqualTo(-1);
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("by-hand");
	}

	@Test
	void acquireOfAFairlyHeldLockIsRefused() {
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "fair:1", 5000, 0, "").granted()).isTrue();
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).holderLeaseMillis()).isBetween(4000L, 5000L);
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("fair:1");
	}

	@Test
	void releaseByAnotherOwnerLeavesTheLockAsItIs() {
		this.scripts.acquire("order:1", "node:1", 5000);
		String held = this.scripts.cli().get("test:{order:1}");
		assertThat(this.scripts.release("order:1", "node:2", 0)).isEqualTo(-1);
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo(held);
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isBetween(4000L, 5000L);
	}

	@Test
	void releaseLeavesATombstoneWithTheLastTokenThatCountsAsFree() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		long markMillis = this.scripts.commands().replayWindowMillis();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("r|node:1|" + token + "|" + markMillis);
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isPositive()
			.isLessThanOrEqualTo(Math.max(60_000, markMillis))
			.isGreaterThan(Math.max(60_000, markMillis) - 5000);
		assertThat(this.scripts.cli().keys("*")).containsExactly("test:{order:1}");
		assertThat(this.scripts.leaseLeft("order:1")).isEqualTo(-2);
		assertThat(this.scripts.renew("order:1", "node:1", 60_000)).isFalse();
	}

	@Test
	void releaseNobodyWasRefusedForPublishesNothing() {
		this.scripts.acquire("order:1", "node:1", 5000);
		long published = TestCommandStats.calls(this.scripts.cli(), "publish");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(TestCommandStats.calls(this.scripts.cli(), "publish")).isEqualTo(published);
	}

	@Test
	void refusalOfAThreadOfTheHoldersOwnJvmLeavesNoFlagAndTheReleasePublishesNothing() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|node:1|" + token);
		long published = TestCommandStats.calls(this.scripts.cli(), "publish");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(TestCommandStats.calls(this.scripts.cli(), "publish")).isEqualTo(published);
	}

	@Test
	void refusalOfAThreadOfAnotherJvmFlagsTheGrantSoThatTheReleasePublishesAndSaysSo() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		assertThat(this.scripts.acquire("order:1", "other:2", 5000).granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|node:1|" + token + "|c");
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isBetween(4000L, 5000L);
		// Refused again: the flag is there once, and the lease left unchanged.
		assertThat(this.scripts.acquire("order:1", "other:3", 5000).granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|node:1|" + token + "|c");
		assertThat(this.scripts.renew("order:1", "node:1", 60_000)).isTrue();
		assertThat(this.scripts.cli().get("test:{order:1}")).endsWith("|c");
		long published = TestCommandStats.calls(this.scripts.cli(), "publish");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(1);
		assertThat(TestCommandStats.calls(this.scripts.cli(), "publish")).isEqualTo(published + 1);
		assertThat(this.scripts.cli().get("test:{order:1}")).startsWith("r|node:1|" + token + "|").endsWith("|y");
	}

	@Test
	void grantAfterAReleaseThatYieldedPublishesAtItsReleaseThoughNobodyWasRefused() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.acquire("order:1", "other:2", 5000);
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(1);
		long token = this.scripts.acquire("order:1", "other:3", 5000).fencingToken();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|other:3|" + token + "|p");
		long published = TestCommandStats.calls(this.scripts.cli(), "publish");
		// The JVM of node:1 yields: its threads wait for this message, though none was
		// refused.
		assertThat(this.scripts.release("order:1", "other:3", 0)).isZero();
		assertThat(TestCommandStats.calls(this.scripts.cli(), "publish")).isEqualTo(published + 1);
		assertThat(this.scripts.cli().get("test:{order:1}")).doesNotEndWith("|y");
		this.scripts.acquire("order:1", "node:4", 5000);
		assertThat(this.scripts.cli().get("test:{order:1}")).doesNotEndWith("|p");
	}

	@Test
	void releaseAsGrantedLeavesTheTombstoneOfAReleaseThatReadsTheKeyAndRunsTwiceAsOne() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		long published = TestCommandStats.calls(this.scripts.cli(), "publish");
		long gets = TestCommandStats.calls(this.scripts.cli(), "get");
		long sets = TestCommandStats.calls(this.scripts.cli(), "set");
		assertThat(this.scripts.releaseGranted("order:1", "node:1", token)).isZero();
		assertThat(TestCommandStats.calls(this.scripts.cli(), "get")).isEqualTo(gets + 1);
		assertThat(TestCommandStats.calls(this.scripts.cli(), "set")).isEqualTo(sets + 1);
		assertThat(TestCommandStats.calls(this.scripts.cli(), "publish")).isEqualTo(published);
		long markMillis = this.scripts.commands().replayWindowMillis();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("r|node:1|" + token + "|" + markMillis);
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isGreaterThan(Math.max(60_000, markMillis) - 5000);
		// Sent again after a reconnect: the release before, not a lost lock.
		assertThat(this.scripts.releaseGranted("order:1", "node:1", token)).isZero();
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).fencingToken()).isGreaterThan(token);
		assertThat(this.scripts.releaseGranted("order:1", "node:1", token)).isZero();
	}

	@Test
	void releaseAsGrantedOfAGrantAnotherJvmWasRefusedStillPublishesAndSaysSo() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		assertThat(this.scripts.acquire("order:1", "other:2", 5000).granted()).isFalse();
		long published = TestCommandStats.calls(this.scripts.cli(), "publish");
		assertThat(this.scripts.releaseGranted("order:1", "node:1", token)).isEqualTo(1);
		assertThat(TestCommandStats.calls(this.scripts.cli(), "publish")).isEqualTo(published + 1);
		assertThat(this.scripts.cli().get("test:{order:1}")).startsWith("r|node:1|" + token + "|").endsWith("|y");
	}

	@Test
	void releaseAsGrantedRaisesTheFenceToTheLastPassedOnToken() {
		long granted = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		assertThat(this.scripts.releaseGranted("order:1", "node:1", granted, granted + 3)).isZero();
		assertThat(this.scripts.cli().get("test:{order:1}")).startsWith("r|node:1|" + (granted + 3) + "|");
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).fencingToken()).isGreaterThan(granted + 3);
	}

	@Test
	void releaseAsGrantedByAnotherOwnerLeavesTheLockAsItIs() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		String held = this.scripts.cli().get("test:{order:1}");
		assertThat(this.scripts.releaseGranted("order:1", "node:2", token)).isEqualTo(-1);
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo(held);
	}

	@Test
	void releaseRaisesTheFenceToTheLastHandedOverToken() {
		long granted = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		this.scripts.release("order:1", "node:1", granted + 3);
		assertThat(this.scripts.cli().get("test:{order:1}")).startsWith("r|node:1|" + (granted + 3) + "|");
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).fencingToken()).isGreaterThan(granted + 3);
	}

	@Test
	void releaseKeepsTheHeldTokenWhenTheHandedOverOneIsLower() {
		long granted = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		this.scripts.release("order:1", "node:1", granted - 10);
		assertThat(this.scripts.cli().get("test:{order:1}")).startsWith("r|node:1|" + granted + "|");
	}

	@Test
	void grantOverATombstoneAheadOfTheServerClockTakesTheTokenAfterIt() {
		long ahead = serverMicros() + 3_600_000_000L;
		this.scripts.cli().command("SET", "test:{order:1}", "r|gone:1|" + ahead + "|1000", "PX", "60000");
		Attempt attempt = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(attempt.granted()).isTrue();
		assertThat(attempt.fencingToken()).isEqualTo(ahead + 1);
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|node:1|" + (ahead + 1));
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isBetween(4000L, 5000L);
	}

	@Test
	void tokensIncreaseAcrossReleasesAndAfterTheTombstoneExpired() {
		long previous = 0;
		for (int i = 0; i < 20; i++) {
			long token = this.scripts.acquire("order:1", "node:" + i, 5000).fencingToken();
			assertThat(token).isGreaterThan(previous);
			previous = token;
			this.scripts.release("order:1", "node:" + i, 0);
			if (i % 5 == 4) {
				// What the tombstone's expiry leaves: nothing, and server time goes on.
				this.scripts.cli().command("DEL", "test:{order:1}");
			}
		}
	}

	@Test
	void tombstoneCountsAsFreeForEveryKind() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		this.scripts.release("order:1", "node:1", token + 1_000_000_000L);
		assertThat(this.scripts.leaseLeft("order:1")).isEqualTo(-2);
		assertThat(this.scripts.renew("order:1", "node:1", 60_000)).isFalse();
		Attempt fair = this.scripts.acquire(LockKind.FAIR, "order:1", "fair:2", 5000, 5000, "");
		assertThat(fair.granted()).isTrue();
		assertThat(fair.fencingToken()).isGreaterThan(token + 1_000_000_000L);
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("fair:2");
		// The exclusive release stays known though a fair grant replaced its tombstone.
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "fair:2", 0)).isZero();
		assertThat(this.scripts.acquire("order:1", "node:3", 5000).granted()).isTrue();
	}

	@Test
	void fairWaiterLeavingWakesTheNextWhenOnlyATombstoneIsLeft() {
		this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "fair:1", 5000, 5000, "").granted()).isFalse();
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "fair:2", 5000, 5000, "").granted()).isFalse();
		this.scripts.release("order:1", "node:1", 0);
		long published = TestCommandStats.calls(this.scripts.cli(), "publish");
		LockKind.FAIR.leave(this.scripts.lockScripts(), "order:1", "fair:1");
		assertThat(TestCommandStats.calls(this.scripts.cli(), "publish")).isEqualTo(published + 1);
	}

	@Test
	void renewExtendsOnlyTheOwnersLease() {
		this.scripts.acquire("order:1", "node:1", 1000);
		assertThat(this.scripts.renew("order:1", "node:2", 60_000)).isFalse();
		assertThat(this.scripts.renew("order:1", "node:", 60_000)).isFalse();
		assertThat(this.scripts.renew("order:1", "node:12", 60_000)).isFalse();
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isLessThanOrEqualTo(1000L);
		assertThat(this.scripts.renew("order:1", "node:1", 60_000)).isTrue();
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isGreaterThan(50_000L);
	}

	@Test
	void renewOfAnExpiredLockFails() {
		assertThat(this.scripts.renew("order:1", "node:1", 60_000)).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isNull();
	}

	@Test
	void allKeysAndTheChannelOfALockShareOneHashTag() {
		LockScripts keys = new LockScripts(new LettuceConnectionFactory(), "app:",
				new ReleaseMessaging(new LettuceConnectionFactory()));
		assertThat(keys.lockKey("a:b")).isEqualTo("app:{a:b}");
		// The slot of the name itself, so that data tagged with the name lives with them
		assertThat(List.of(keys.lockKey("a:b"), keys.fenceKey("a:b"), keys.releasedKey("a:b", "node:1"),
				FairLockKind.queueKey(keys, "a:b"), FairLockKind.queueDeadlinesKey(keys, "a:b"),
				ReadWriteLockKind.readWriteKey(keys, "a:b"), ReadWriteLockKind.writerIntentKey(keys, "a:b"),
				LockKind.EXCLUSIVE.channel("app:", "a:b"), LockKind.FAIR.channel("app:", "a:b"),
				LockKind.READ.channel("app:", "a:b"), LockKind.WRITE.channel("app:", "a:b")))
			.allSatisfy((key) -> assertThat(RedisCluster.slot(key)).as(key).isEqualTo(RedisCluster.slot("a:b")));
	}

	@Test
	void ownerTokensAreUniqueAndShareTheInstanceId() {
		Acquisition.OwnerTokens tokens = new Acquisition.OwnerTokens();
		String first = tokens.next();
		String second = tokens.next();
		assertThat(first).isNotEqualTo(second).startsWith(tokens.instanceId() + ":");
		assertThat(second).startsWith(tokens.instanceId() + ":");
		assertThat(new Acquisition.OwnerTokens().instanceId()).isNotEqualTo(tokens.instanceId());
	}

	@SuppressWarnings("unchecked")
	private long serverMicros() {
		List<Object> time = (List<Object>) this.scripts.cli().command("TIME");
		return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
	}

	/** Reads one command's call count from INFO commandstats. */
	private static final class TestCommandStats {

		static long calls(RedisCli cli, String command) {
			for (String line : cli.info("commandstats").split("\r?\n")) {
				if (line.startsWith("cmdstat_" + command + ":calls=")) {
					String rest = line.substring(line.indexOf("calls=") + 6);
					return Long.parseLong(rest.substring(0, rest.indexOf(',')));
				}
			}
			return 0;
		}

	}

}
