package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockMode;
import io.github.redislock.engine.ReleaseSubscriptions.WakeUp;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kinds on their own: which kind a request asks for, and whom each kind's release
 * message wakes in the JVM that receives it.
 */
class LockKindTests {

	private static final byte[] OWN = bytes("1f2e3d4c5b6a7988:");

	@Test
	void requestsMapToTheirKinds() {
		assertThat(LockKind.of(LockMode.EXCLUSIVE, false, 1)).isSameAs(LockKind.EXCLUSIVE);
		assertThat(LockKind.of(LockMode.EXCLUSIVE, true, 1)).isSameAs(LockKind.FAIR);
		assertThat(LockKind.of(LockMode.READ, false, 1)).isSameAs(LockKind.READ);
		assertThat(LockKind.of(LockMode.WRITE, false, 1)).isSameAs(LockKind.WRITE);
	}

	@Test
	void exclusiveReleaseOfThisJvmWakesNobodyAndOfAnotherWakesOneAndEndsTheYield() {
		assertThat(LockKind.wakeUpOf(bytes("1f2e3d4c5b6a7988:12"), OWN)).isSameAs(WakeUp.NOBODY);
		WakeUp other = LockKind.wakeUpOf(bytes("0000000000000000:12"), OWN);
		assertThat(other).isSameAs(WakeUp.NEXT);
		assertThat(other.endsYield()).isTrue();
	}

	@Test
	void fairReleaseWakesOnlyTheNamedWaiterInItsOwnJvm() {
		WakeUp own = LockKind.wakeUpOf(bytes(">1f2e3d4c5b6a7988:7"), OWN);
		assertThat(own).hasToString("owner 1f2e3d4c5b6a7988:7");
		assertThat(own.endsYield()).isFalse();
		assertThat(LockKind.wakeUpOf(bytes(">0000000000000000:7"), OWN)).isSameAs(WakeUp.NOBODY);
	}

	@Test
	void readWriteReleaseWakesEveryWaiterWhoeverSentIt() {
		assertThat(LockKind.wakeUpOf(bytes("*1f2e3d4c5b6a7988:3"), OWN)).isSameAs(WakeUp.ALL);
		assertThat(LockKind.wakeUpOf(bytes("*0000000000000000:3"), OWN)).isSameAs(WakeUp.ALL);
		assertThat(WakeUp.ALL.endsYield()).isFalse();
	}

	@Test
	void onlyTheExclusiveKindYieldsAndOnlyFairAndWriteQueue() {
		assertThat(LockKind.EXCLUSIVE.yields() && !LockKind.EXCLUSIVE.queues()).isTrue();
		for (LockKind kind : new LockKind[] { LockKind.FAIR, LockKind.READ, LockKind.WRITE }) {
			assertThat(kind.yields()).as(kind.toString()).isFalse();
		}
		assertThat(LockKind.FAIR.queues()).isTrue();
		assertThat(LockKind.WRITE.queues()).isTrue();
		assertThat(LockKind.READ.queues()).isFalse();
	}

	@Test
	void bothSidesOfAReadWriteLockShareOneChannelAndExclusiveAndFairShareAnother() {
		assertThat(LockKind.READ.channel("app:", "a")).isEqualTo(LockKind.WRITE.channel("app:", "a"))
			.isEqualTo("app:{a}:rw:released");
		assertThat(LockKind.EXCLUSIVE.channel("app:", "a")).isEqualTo(LockKind.FAIR.channel("app:", "a"))
			.isEqualTo("app:{a}:released");
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
