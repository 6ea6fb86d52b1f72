package io.github.redislock;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attempt without wait always asks Redis unless a thread of its own JVM holds the
 * lock: yielding to waiters of other JVMs only delays attempts that can wait, as
 * {@code java.util.concurrent}'s {@code tryLock()} barges even into a fair lock.
 */
@RedisTest
class ZeroWaitAttemptTests {

	private static final String KEY = "report";

	private StandaloneLocks locks;

	private LockTemplate node;

	private LockTemplate otherNode;

	@BeforeEach
	void setUp(RedisServer server) {
		this.locks = new StandaloneLocks(server);
		this.node = this.locks.template();
		this.otherNode = this.locks.template();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void attemptWithoutWaitRightAfterAReleaseGetsTheFreeLockThatAnotherJvmGaveUpOn() {
		LockHandle held = this.node.lock(KEY);
		// Refused once: the release below makes this JVM yield the lock to the other one.
		assertThat(this.otherNode.tryLock(KEY, Duration.ofMillis(100))).isEmpty();
		held.close();
		Optional<LockHandle> again = this.node.tryLock(KEY, Duration.ZERO);
		assertThat(again).isPresent();
		again.get().close();
	}

	@Test
	void attemptWithoutWaitIsRefusedWhileAnotherLocalThreadHoldsTheLock() throws Exception {
		try (LockHandle held = this.node.lock(KEY)) {
			Thread other = new Thread(() -> {
				Optional<LockHandle> attempt = this.node.tryLock(KEY, Duration.ZERO);
				assertThat(attempt).isEmpty();
			});
			other.start();
			other.join(10_000);
			assertThat(other.isAlive()).isFalse();
			assertThat(held.isHeld()).isTrue();
		}
	}

}
