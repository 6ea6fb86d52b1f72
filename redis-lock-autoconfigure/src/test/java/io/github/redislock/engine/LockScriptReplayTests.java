package io.github.redislock.engine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.engine.Acquisition.Attempt;
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
	void acquireRunTwiceReturnsTheSameGrantAndToken() {
		Attempt first = this.scripts.acquire("order:1", "node:1", 5000);
		Attempt again = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|node:1|" + first.fencingToken());
	}

	@Test
	void acquireRunTwiceAfterAnotherJvmWasRefusedReturnsTheSameGrantAndToken() {
		Attempt first = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(this.scripts.acquire("order:1", "other:2", 5000).granted()).isFalse();
		Attempt again = this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("h|node:1|" + first.fencingToken() + "|c");
	}

	@Test
	void acquireRunTwiceOverATombstoneReturnsTheSameGrantAndToken() {
		long released = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		this.scripts.release("order:1", "node:1", released + 5);
		Attempt first = this.scripts.acquire("order:1", "node:2", 5000);
		Attempt again = this.scripts.acquire("order:1", "node:2", 5000);
		assertThat(first.fencingToken()).isGreaterThan(released + 5);
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
	}

	@Test
	void releaseRunTwiceIsNotALoss() {
		this.scripts.acquire("order:1", "node:1", 5000);
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
	}

	@Test
	void releaseRunTwiceAfterAnotherJvmWasRefusedIsNotALossAndPublishesOnce() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.acquire("order:1", "other:2", 5000);
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(1);
		long published = publishCalls();
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(publishCalls()).isEqualTo(published);
	}

	@Test
	void releaseRunTwiceAfterAnotherOwnerTookTheLockIsNotALossAndLeavesItHeld() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.release("order:1", "node:1", 0);
		assertThat(this.scripts.acquire("order:1", "other:7", 5000).granted()).isTrue();
		String held = this.scripts.cli().get("test:{order:1}");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo(held);
		assertThat(LockKeyValues.holder(held)).isEqualTo("other:7");
	}

	@Test
	void releaseRunTwiceAfterLaterOwnersTookAndReleasedTheLockIsNotALoss() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.release("order:1", "node:1", 0);
		for (int i = 2; i < 5; i++) {
			this.scripts.acquire("order:1", "node:" + i, 5000);
			this.scripts.release("order:1", "node:" + i, 0);
		}
		this.scripts.acquire("order:1", "other:7", 5000);
		for (int i = 1; i < 5; i++) {
			assertThat(this.scripts.release("order:1", "node:" + i, 0)).as("node:" + i).isZero();
		}
		assertThat(LockKeyValues.holder(this.scripts.cli(), "test:{order:1}")).isEqualTo("other:7");
	}

	@Test
	void releaseOfALockThatExpiredIsStillALoss() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.cli().command("DEL", "test:{order:1}");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
	}

	@Test
	void releaseOfALockThatExpiredAndWentToAnotherOwnerIsStillALoss() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.cli().command("DEL", "test:{order:1}");
		this.scripts.acquire("order:1", "other:7", 5000);
		this.scripts.release("order:1", "other:7", 0);
		this.scripts.acquire("order:1", "other:8", 5000);
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
	}

	@Test
	void releaseStaysKnownAsLongAsACommandMayBeSentAgain() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.release("order:1", "node:1", 0);
		long window = this.scripts.commands().replayWindowMillis();
		assertThat(this.scripts.cli().pttl("test:{order:1}")).isGreaterThanOrEqualTo(window - 5000);
		this.scripts.acquire("order:1", "other:7", 5000);
		assertThat(this.scripts.cli().pttl("test:{order:1}:released:node:1")).isPositive().isLessThanOrEqualTo(window);
	}

	@Test
	void fairAcquireRunTwiceReturnsTheSameGrantAndQueuesNothing() {
		Attempt first = this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		Attempt again = this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(this.scripts.cli().command("LLEN", "test:{order:1}:queue")).isEqualTo(0L);
	}

	@Test
	void fairReleaseRunTwiceIsNotALoss() {
		this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "other:7", 5000, 5000, "").granted()).isTrue();
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo("other:7");
	}

	@Test
	void writeAcquireRunTwiceReturnsTheSameGrantAndSetsNoIntent() {
		Attempt first = this.scripts.acquire(LockKind.WRITE, "order:1", "node:1", 5000, 5000, "");
		Attempt again = this.scripts.acquire(LockKind.WRITE, "order:1", "node:1", 5000, 5000, "");
		assertThat(again.granted()).isTrue();
		assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
		assertThat(this.scripts.cli().get("test:{order:1}:rw:writer")).isNull();
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

	@Test
	void releaseOfALockThatExpiredRunTwiceIsStillALoss() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.cli().command("DEL", "test:{order:1}");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
	}

	@Test
	void acquireRunAgainAfterItsReleaseIsRefused() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		assertThat(this.scripts.releaseGranted("order:1", "node:1", token)).isZero();
		String tombstone = this.scripts.cli().get("test:{order:1}");
		assertThat(this.scripts.acquire("order:1", "node:1", 5000).granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo(tombstone);
		assertThat(this.scripts.acquire("order:1", "other:2", 5000).granted()).isTrue();
	}

	@Test
	void acquireRunAgainAfterItsReleaseAndALaterGrantIsRefused() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.release("order:1", "node:1", 0);
		this.scripts.acquire("order:1", "other:2", 5000);
		this.scripts.release("order:1", "other:2", 0);
		assertThat(this.scripts.acquire("order:1", "node:1", 5000).granted()).isFalse();
		assertThat(LockKeyValues.holder(this.scripts.cli(), "test:{order:1}")).isNull();
	}

	@Test
	void acquireRunAgainAfterItsReleaseIsRefusedOnceTheLaterGrantExpired() {
		this.scripts.acquire("order:1", "node:1", 5000);
		this.scripts.release("order:1", "node:1", 0);
		this.scripts.acquire("order:1", "other:2", 5000);
		// What the expiry of the later grant's lease leaves: the first owner's mark
		// alone.
		this.scripts.cli().command("DEL", "test:{order:1}");
		assertThat(this.scripts.acquire("order:1", "node:1", 5000).granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isNull();
		assertThat(this.scripts.acquire("order:1", "other:3", 5000).granted()).isTrue();
	}

	@Test
	void giveBackThatFindsNothingLeavesItsMarkAndTheAcquisitionArrivingLaterIsRefused() {
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
		long window = this.scripts.commands().replayWindowMillis();
		assertThat(this.scripts.cli().pttl("test:{order:1}:released:node:1")).isPositive().isLessThanOrEqualTo(window);
		assertThat(this.scripts.acquire("order:1", "node:1", 5000).granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isNull();
		assertThat(this.scripts.acquire("order:1", "other:2", 5000).granted()).isTrue();
	}

	@Test
	void giveBackThatFindsAnotherOwnersGrantLeavesItsMarkAndLeavesTheGrant() {
		this.scripts.acquire("order:1", "other:2", 5000);
		String held = this.scripts.cli().get("test:{order:1}");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo(held);
		assertThat(this.scripts.acquire("order:1", "node:1", 5000).granted()).isFalse();
		// Refused as an owner whose release ran, not as a waiter of another JVM: no flag.
		assertThat(this.scripts.cli().get("test:{order:1}")).isEqualTo(held);
		this.scripts.cli().command("DEL", "test:{order:1}");
		assertThat(this.scripts.acquire("order:1", "node:1", 5000).granted()).isFalse();
	}

	@Test
	void fairAcquireRunAgainAfterItsReleaseIsRefusedAndQueuesNothing() {
		this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "").granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isNull();
		assertThat(this.scripts.cli().command("LLEN", "test:{order:1}:queue")).isEqualTo(0L);
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "other:2", 5000, 5000, "").granted()).isTrue();
	}

	@Test
	void fairAcquireRunAfterAGiveBackThatFoundNothingIsRefused() {
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0)).isEqualTo(-1);
		assertThat(this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0)).isEqualTo(-1);
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "").granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}")).isNull();
		assertThat(this.scripts.cli().command("LLEN", "test:{order:1}:queue")).isEqualTo(0L);
	}

	@Test
	void fairAcquireRunAgainAfterItsExclusiveTombstoneWasReplacedIsRefused() {
		this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "");
		this.scripts.release(LockKind.FAIR, "order:1", "node:1", 0);
		this.scripts.acquire("order:1", "other:2", 5000);
		this.scripts.release("order:1", "other:2", 0);
		assertThat(this.scripts.acquire(LockKind.FAIR, "order:1", "node:1", 5000, 5000, "").granted()).isFalse();
	}

	@Test
	void writeAcquireRunAgainAfterItsReleaseIsRefusedAndSetsNoIntent() {
		this.scripts.acquire(LockKind.WRITE, "order:1", "node:1", 5000, 5000, "");
		assertThat(this.scripts.release(LockKind.WRITE, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.acquire(LockKind.WRITE, "order:1", "node:1", 5000, 5000, "").granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}:rw:writer")).isNull();
		assertThat(this.scripts.cli().keys("test:{order:1}:rw")).isEmpty();
		assertThat(this.scripts.acquire(LockKind.READ, "order:1", "reader:2", 5000, 0, "").granted()).isTrue();
	}

	@Test
	void readAcquireRunAgainAfterItsReleaseIsRefused() {
		this.scripts.acquire(LockKind.READ, "order:1", "node:1", 5000, 0, "");
		this.scripts.acquire(LockKind.READ, "order:1", "node:2", 5000, 0, "");
		assertThat(this.scripts.release(LockKind.READ, "order:1", "node:1", 0)).isZero();
		assertThat(this.scripts.acquire(LockKind.READ, "order:1", "node:1", 5000, 0, "").granted()).isFalse();
		assertThat(this.scripts.cli().command("HEXISTS", "test:{order:1}:rw", "node:1")).isEqualTo(0L);
	}

	@Test
	void readWriteAcquireRunAfterAGiveBackThatFoundNothingIsRefused() {
		assertThat(this.scripts.release(LockKind.WRITE, "order:1", "writer:1", 0)).isEqualTo(-1);
		assertThat(this.scripts.release(LockKind.READ, "order:1", "reader:1", 0)).isEqualTo(-1);
		assertThat(this.scripts.release(LockKind.READ, "order:1", "reader:1", 0)).isEqualTo(-1);
		assertThat(this.scripts.acquire(LockKind.WRITE, "order:1", "writer:1", 5000, 5000, "").granted()).isFalse();
		assertThat(this.scripts.cli().get("test:{order:1}:rw:writer")).isNull();
		assertThat(this.scripts.acquire(LockKind.READ, "order:1", "reader:1", 5000, 0, "").granted()).isFalse();
		assertThat(this.scripts.cli().keys("test:{order:1}:rw")).isEmpty();
	}

	@Test
	void checkOfAGrantWhoseReleaseFoundItGoneTellsItGoneNotReleased() {
		long token = this.scripts.acquire("order:1", "node:1", 5000).fencingToken();
		LockLease lease = new LockLease(LockKind.EXCLUSIVE, "order:1", "node:1", token, 5000, true, System.nanoTime());
		this.scripts.cli().command("DEL", "test:{order:1}");
		assertThat(this.scripts.release("order:1", "node:1", 0)).isEqualTo(-1);
		LockScripts lockScripts = this.scripts.lockScripts();
		assertThat(lockScripts.execute(LockKind.EXCLUSIVE.checkCall(lockScripts, lease)).get(0)).isEqualTo(0L);
	}

	private long publishCalls() {
		for (String line : this.scripts.cli().info("commandstats").split("\\r?\\n")) {
			if (line.startsWith("cmdstat_publish:calls=")) {
				String rest = line.substring(line.indexOf("calls=") + 6);
				return Long.parseLong(rest.substring(0, rest.indexOf(',')));
			}
		}
		return 0;
	}

}
