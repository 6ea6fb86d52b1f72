package io.github.redislock.contract;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Edges of the contract: a key with a brace inside (which must not move its hash tag),
 * waits and leases longer than a nanosecond clock holds, interrupts before a call to
 * Redis and before a release, and attempts without wait, which always ask Redis unless a
 * thread of their own JVM holds the lock: yielding to waiters of other JVMs only delays
 * attempts that can wait, as {@code java.util.concurrent}'s {@code tryLock()} barges even
 * into a fair lock.
 */
interface LockEdgeContract extends LockContract {

	@Test
	default void keyWithABraceInsideLocksAsAnyOther() {
		LockTemplate node = locks().template();
		try (LockHandle handle = node.lock(LockRequest.of("order}42").mode(LockMode.WRITE))) {
			assertThat(handle.isHeld()).isTrue();
		}
		try (LockHandle handle = node.lock(LockRequest.of("order}42").fair(true))) {
			assertThat(handle.isHeld()).isTrue();
		}
	}

	@Test
	default void hugeWaitAndLeaseWork() {
		LockTemplate node = locks().template();
		RedisCli cli = locks().cli("order");
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
		try (LockHandle handle = node.lock(LockRequest.of("order").waitTime(forever).leaseTime(forever))) {
			assertThat(handle.isHeld()).isTrue();
			assertThat(cli.pttl("redis-lock:{order}")).isGreaterThan(TimeUnit.DAYS.toMillis(365));
		}
		assertThat(LockKeyValues.holder(cli, "redis-lock:{order}")).isNull();
	}

	@Test
	default void alreadyInterruptedThreadIsRefusedWithoutACommand() {
		LockTemplate node = locks().template();
		long scripts = CommandStats.scriptCalls(locks().commandCalls());
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(LockInterruptedException.class).isThrownBy(() -> node.lock("order"));
		assertThat(Thread.interrupted()).isTrue();
		assertThat(CommandStats.scriptCalls(locks().commandCalls())).isEqualTo(scripts);
	}

	@Test
	default void interruptedThreadStillReleasesItsLock() {
		LockTemplate node = locks().template();
		LockHandle handle = node.lock("order");
		Thread.currentThread().interrupt();
		handle.close();
		assertThat(Thread.interrupted()).isTrue();
		assertThat(LockKeyValues.holder(locks().cli("order"), "redis-lock:{order}")).isNull();
	}

	@Test
	default void attemptWithoutWaitRightAfterAReleaseGetsTheFreeLockThatAnotherJvmGaveUpOn() {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		LockHandle held = node.lock("report");
		// Refused once: the release below makes this JVM yield the lock to the other one.
		assertThat(otherNode.tryLock("report", Duration.ofMillis(100))).isEmpty();
		held.close();
		Optional<LockHandle> again = node.tryLock("report", Duration.ZERO);
		assertThat(again).isPresent();
		again.get().close();
	}

	@Test
	default void attemptWithoutWaitIsRefusedWhileAnotherLocalThreadHoldsTheLock() throws Exception {
		LockTemplate node = locks().template();
		try (LockHandle held = node.lock("report")) {
			FutureTask<Optional<LockHandle>> attempt = new FutureTask<>(() -> node.tryLock("report", Duration.ZERO));
			CallerThreads.factory("other-").newThread(attempt).start();
			assertThat(attempt.get(10, TimeUnit.SECONDS)).isEmpty();
			assertThat(held.isHeld()).isTrue();
		}
	}

}
