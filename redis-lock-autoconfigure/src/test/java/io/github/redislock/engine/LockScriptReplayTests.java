package io.github.redislock.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every script run twice for the same attempt, as Lettuce does when it sends again, after
 * a reconnect, a command whose answer was lost: the second run must answer as the first
 * did, never as if another owner had been there.
 */
@RedisTest
class LockScriptReplayTests {

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
	void acquireRunTwiceReturnsTheSameGrantAndToken() {
		Attempt first = this.scripts.acquire("order:1", "node:1", 5000);
		Attempt again = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(this.cli.get("test:{order:1}")).isEqualTo("node:1");
	}

	@Test
	void acquireRunTwiceAfterTheFenceKeyExpiredGrantsAGreaterToken() {
		Attempt first = this.scripts.acquire("order:1", "node:1", 5000);
		this.cli.command("DEL", "test:{order:1}:fence");
		Attempt again = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isGreaterThan(first.fencingToken());
	}

	@Test
	void releaseRunTwiceIsNotALoss() {
		this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
	}

	@Test
	void releaseRunTwiceAfterAnotherOwnerTookTheLockIsNotALossAndLeavesItHeld() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.release("order:1", "node:1", 0);
		assertThat(this.scripts.acquire("order:1", "other:7", 5000).granted()).isTrue();
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(this.cli.get("test:{order:1}")).isEqualTo("other:7");
	}

	@Test
	void releaseOfALockThatExpiredIsStillALoss() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.cli.command("DEL", "test:{order:1}");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
	}

	@Test
	void releaseMarkLastsAsLongAsACommandMayBeSentAgain() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.release("order:1", "node:1", 0);
		long window = this.scripts.commands().replayWindowMillis();
		assertThat(this.cli.pttl("test:{order:1}:released:node:1")).isPositive().isLessThanOrEqualTo(window);
	}

	@Test
	void fairAcquireRunTwiceReturnsTheSameGrantAndQueuesNothing() {
		Attempt first = this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		Attempt again = this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(this.cli.command("LLEN", "test:{order:1}:queue")).isEqualTo(0L);
	}

	@Test
	void fairReleaseRunTwiceIsNotALoss() {
		this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "other:7", 5000, 5000, "").granted()).isTrue();
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0)).isZero();
		assertThat(this.cli.get("test:{order:1}")).isEqualTo("other:7");
	}

	@Test
	void writeAcquireRunTwiceReturnsTheSameGrantAndSetsNoIntent() {
		Attempt first = this.scripts.acquire(LockKind.WRITE, "order:1", "node:1", 5000, 5000, "");
		Attempt again = this.scripts.acquire(LockKind.WRITE, "order:1", "node:1", 5000, 5000, "");
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(this.cli.get("test:{order:1}:rw:writer")).isNull();
		assertThat(this.scripts.acquire(LockKind.READ, "order:1", "reader:2", 5000, 0, "").granted()).isFalse();
	}

	@Test
	void readAcquireRunTwiceIsGrantedWhileAWriterWaits() {
		Attempt first = this.scripts.acquire(LockKind.READ, "order:1", "node:1", 5000, 0, "");
		assertThat(this.scripts.acquire(LockKind.WRITE, "order:1", "writer:2", 5000, 5000, "").granted()).isFalse();
		Attempt again = this.scripts.acquire(LockKind.READ, "order:1", "node:1", 5000, 0, "");
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isGreaterThanOrEqualTo(first.fencingToken());
	}

	@Test
	void readWriteReleaseRunTwiceIsNotALoss() {
		this.scripts.acquire(LockKind.READ, "order:1", "node:1", 5000, 0, "");
		this.scripts.acquire(LockKind.READ, "order:1", "node:2", 5000, 0, "");
		assertThat(this.scripts.release(LockKind.READ, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.release(LockKind.READ, "order:1", "node:2", 0)).isZero();
		assertThat(this.scripts.release(LockKind.READ, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.release(LockKind.READ, "order:1", "node:3", 0)).isEqualTo(-1);
	}

}
