package io.github.redislock.engine;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

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

	private LettuceConnectionFactory connectionFactory;

	private TestScripts scripts;

	private RedisCli cli;

	@BeforeEach
	void setUp(RedisServer server) {
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.scripts = new TestScripts(this.connectionFactory, "test:");
		this.cli = server.cli();
	}

	@AfterEach
	void tearDown() {
		this.cli.close();
		this.connectionFactory.destroy();
	}

	@Test
	void acquireOfAFreeLockStoresTheOwnerWithTheLease() {
		Attempt attempt = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(attempt.granted()).isTrue();
		assertThat(this.cli.get("test:{order:1}")).isEqualTo("node:1");
		assertThat(this.cli.pttl("test:{order:1}")).isBetween(4000L, 5000L);
		assertThat(this.cli.get("test:{order:1}:fence")).isEqualTo(Long.toString(attempt.fencingToken()));
	}

	@Test
	void acquireOfAHeldLockRepliesWithTheHoldersLeaseLeft() {
		this.scripts.acquire("order:1", "node:1", 5000);
		Attempt attempt = this.scripts.acquire("order:1", "node:2", 5000);
		assertThat(attempt.granted()).isFalse();
		assertThat(attempt.holderLeaseMillis()).isBetween(4000L, 5000L);
		assertThat(this.cli.get("test:{order:1}")).isEqualTo("node:1");
	}

	@Test
	void acquireOfALockWithoutExpiryRepliesMinusOne() {
		this.cli.command("SET", "test:{order:1}", "by-hand");
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).holderLeaseMillis()).isEqualTo(-1);
	}

	@Test
	void releaseDeletesOnlyForTheOwnerAndPublishesToNoSubscriber() {
		this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(this.scripts.release("order:1", "node:2", 0)).isEqualTo(-1);
		assertThat(this.cli.get("test:{order:1}")).isEqualTo("node:1");
		long published = TestCommandStats.calls(this.cli, "publish");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(this.cli.get("test:{order:1}")).isNull();
		assertThat(TestCommandStats.calls(this.cli, "publish")).isEqualTo(published + 1);
	}

	@Test
	void releaseRaisesTheFenceToTheLastHandedOverToken() {
		long granted = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		this.scripts.release("order:1", "node:1", granted + 3);
		assertThat(this.cli.get("test:{order:1}:fence")).isEqualTo(Long.toString(granted + 3));
		assertThat(this.scripts.acquire("order:1", "node:2", 5000).fencingToken()).isGreaterThan(granted + 3);
	}

	@Test
	void renewExtendsOnlyTheOwnersLease() {
		this.scripts.acquire("order:1", "node:1", 1000);
		assertThat(this.scripts.renew("order:1", "node:2", 60_000)).isFalse();
		assertThat(this.cli.pttl("test:{order:1}")).isLessThanOrEqualTo(1000L);
		assertThat(this.scripts.renew("order:1", "node:1", 60_000)).isTrue();
		assertThat(this.cli.pttl("test:{order:1}")).isGreaterThan(50_000L);
	}

	@Test
	void renewOfAnExpiredLockFails() {
		assertThat(this.scripts.renew("order:1", "node:1", 60_000)).isFalse();
		assertThat(this.cli.get("test:{order:1}")).isNull();
	}

	@Test
	void allKeysAndTheChannelOfALockShareOneHashTag() {
		LockKeys keys = new LockKeys("app:");
		assertThat(keys.lockKey("a:b")).isEqualTo("app:{a:b}");
		// The slot of the name itself, so that data tagged with the name lives with them
		assertThat(List.of(keys.lockKey("a:b"), keys.fenceKey("a:b"), keys.releasedKey("a:b", "node:1"),
				ExclusiveLockKind.contendersKey(keys, "a:b"), FairLockKind.queueKey(keys, "a:b"),
				FairLockKind.queueDeadlinesKey(keys, "a:b"), ReadWriteLockKind.readWriteKey(keys, "a:b"),
				ReadWriteLockKind.writerIntentKey(keys, "a:b"), LockKind.EXCLUSIVE.channel(keys, "a:b"),
				LockKind.FAIR.channel(keys, "a:b"), LockKind.READ.channel(keys, "a:b"),
				LockKind.WRITE.channel(keys, "a:b")))
			.allSatisfy((key) -> assertThat(RedisCluster.slot(key)).as(key).isEqualTo(RedisCluster.slot("a:b")));
	}

	@Test
	void ownerTokensAreUniqueAndShareTheInstanceId() {
		OwnerTokens tokens = new OwnerTokens();
		String first = tokens.next();
		String second = tokens.next();
		assertThat(first).isNotEqualTo(second).startsWith(tokens.instanceId() + ":");
		assertThat(second).startsWith(tokens.instanceId() + ":");
		assertThat(new OwnerTokens().instanceId()).isNotEqualTo(tokens.instanceId());
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
