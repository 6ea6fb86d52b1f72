package io.github.redislock.contract;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockShutdownException;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * Exclusive locks: acquire and release, exclusion of other nodes and threads, reentrancy,
 * owner-only release, closing handles, and what each costs in round trips. Tests that
 * loop over {@link LockFixture#names} show the behaviour on every primary.
 */
interface ExclusiveLockContract extends LockContract {

	@Test
	default void executeRunsActionUnderLockAndReleases() {
		LockTemplate template = locks().template();
		RedisCli cli = locks().cli("report");
		String result = template.execute("report", () -> {
			assertThat(LockKeyValues.holder(cli, "redis-lock:{report}")).isNotNull();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(LockKeyValues.holder(cli, "redis-lock:{report}")).isNull();
	}

	@Test
	default void uncontendedLockAndReleaseAreOneScriptEach() {
		LockTemplate template = locks().template();
		template.run("warm-up", () -> {
		});
		long before = locks().roundTrips();
		long evalShaBefore = locks().commandCalls().get("evalsha");
		try (LockHandle handle = template.lock("order:1")) {
			assertThat(locks().roundTrips() - before).isEqualTo(1);
		}
		assertThat(locks().roundTrips() - before).isEqualTo(2);
		assertThat(locks().commandCalls().get("evalsha") - evalShaBefore).isEqualTo(2);
	}

	@Test
	default void reentrantAcquireMakesNoRoundTrip() {
		LockTemplate template = locks().template();
		try (LockHandle outer = template.lock("order:1")) {
			long before = locks().roundTrips();
			try (LockHandle inner = template.lock("order:1")) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(locks().roundTrips()).isEqualTo(before);
		}
	}

	/** A reentrant acquisition shares the grant; only the outermost close releases it. */
	@Test
	default void reentrantLockIsReleasedInRedisOnlyByTheOutermostClose() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		for (String name : locks().names("order", 1)) {
			RedisCli cli = locks().cli(name);
			LockHandle outer = template.lock(name);
			LockHandle inner = template.lock(name);
			assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			inner.close();
			assertThat(inner.isHeld()).isFalse();
			assertThat(outer.isHeld()).isTrue();
			assertThat(LockKeyValues.holder(cli, LockFixture.lockKey(name))).isNotNull();
			assertThat(otherNode.tryLock(name, Duration.ZERO)).as(name).isEmpty();
			outer.close();
			assertThat(LockKeyValues.holder(cli, LockFixture.lockKey(name))).isNull();
			Optional<LockHandle> afterRelease = otherNode.tryLock(name, Duration.ZERO);
			assertThat(afterRelease).as(name).isPresent();
			afterRelease.get().close();
		}
	}

	/** A held lock excludes the other node and other threads of its own node. */
	@Test
	default void heldLockExcludesOtherNodesAndOtherThreads() throws Exception {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		for (String name : locks().names("order", 1)) {
			try (LockHandle handle = template.lock(name)) {
				assertThat(otherNode.tryLock(name, Duration.ZERO)).as(name).isEmpty();
				Optional<LockHandle> fromOtherThread = CompletableFuture
					.supplyAsync(() -> template.tryLock(name, Duration.ZERO), executor())
					.get(5, TimeUnit.SECONDS);
				assertThat(fromOtherThread).isEmpty();
				assertThat(handle.isHeld()).isTrue();
			}
			Optional<LockHandle> afterRelease = otherNode.tryLock(name, Duration.ZERO);
			assertThat(afterRelease).as(name).isPresent();
			afterRelease.get().close();
		}
	}

	/**
	 * A holder whose lease ran out in Redis, unknown to it, releases through the real
	 * release path with its own owner token: the lock that another node took meanwhile is
	 * left with its owner and lease, and only the late holder hears of the loss.
	 */
	@Test
	default void releaseByAnotherOwnerLeavesLockHeld() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		RedisCli cli = locks().cli("order:1");
		LockHandle late = template.lock("order:1");
		// No renewal comes for 10 s (default watchdog), so the handle still counts as
		// held.
		cli.command("PEXPIRE", "redis-lock:{order:1}", "1");
		await().atMost(Duration.ofSeconds(5)).until(() -> cli.get("redis-lock:{order:1}") == null);
		assertThat(late.isHeld()).isTrue();
		LockHandle current = otherNode.lock("order:1");
		String owner = LockKeyValues.holder(cli, "redis-lock:{order:1}");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(late::close)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(late.fencingToken()));
		assertThat(LockKeyValues.holder(cli, "redis-lock:{order:1}")).isEqualTo(owner);
		assertThat(cli.pttl("redis-lock:{order:1}")).isPositive();
		assertThat(current.isHeld()).isTrue();
		assertThat(template.tryLock("order:1", Duration.ZERO)).isEmpty();
		// Its own lock all along: the release succeeds and reports no loss.
		current.close();
		assertThat(LockKeyValues.holder(cli, "redis-lock:{order:1}")).isNull();
	}

	/**
	 * A holder whose lock was taken over cannot release the new holder's lock: its close
	 * reports the loss and the other node keeps the lock.
	 */
	@Test
	default void closingAHandleWhoseLockWasTakenOverLeavesTheNewHolderAlone() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		for (String name : locks().names("order", 1)) {
			RedisCli cli = locks().cli(name);
			LockHandle mine = template.lock(name);
			cli.command("DEL", LockFixture.lockKey(name));
			LockHandle theirs = otherNode.lock(name);
			String theirOwner = LockKeyValues.holder(cli, LockFixture.lockKey(name));
			assertThatExceptionOfType(LockLostException.class).isThrownBy(mine::close)
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo(name));
			assertThat(theirs.isHeld()).isTrue();
			assertThat(LockKeyValues.holder(cli, LockFixture.lockKey(name))).as(name).isNotNull().isEqualTo(theirOwner);
			theirs.close();
			assertThat(LockKeyValues.holder(cli, LockFixture.lockKey(name))).isNull();
		}
	}

	/** A holder whose lease ran out cannot release its successor's lock. */
	@Test
	default void holderWhoseLeaseRanOutCannotReleaseItsSuccessorsLock() {
		LockTemplate node = locks().template();
		LockTemplate successor = locks().template();
		RedisCli cli = locks().cli("owned");
		LockHandle expired = node.lock(LockRequest.of("owned").leaseTime(Duration.ofMillis(500)));
		try (LockHandle current = successor.lock(LockRequest.of("owned").waitTime(Duration.ofSeconds(5)))) {
			String owner = LockKeyValues.holder(cli, "redis-lock:{owned}");
			assertThat(expired.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(expired::close)
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("owned"));
			assertThat(LockKeyValues.holder(cli, "redis-lock:{owned}")).isNotNull().isEqualTo(owner);
			assertThat(current.isHeld()).isTrue();
		}
	}

	@Test
	default void ownerTokensDifferPerAcquisitionOnOneThread() {
		LockTemplate template = locks().template();
		RedisCli cli = locks().cli("order:1");
		String first;
		try (LockHandle handle = template.lock("order:1")) {
			first = LockKeyValues.holder(cli, "redis-lock:{order:1}");
		}
		try (LockHandle handle = template.lock("order:1")) {
			String second = LockKeyValues.holder(cli, "redis-lock:{order:1}");
			assertThat(second).isNotEqualTo(first).matches("[0-9a-f]{16}:[0-9]+");
			assertThat(second.substring(0, 16)).isEqualTo(first.substring(0, 16));
		}
	}

	@Test
	default void handleCanBeClosedFromAnotherThread() throws Exception {
		LockTemplate template = locks().template();
		LockHandle handle = template.lock("order:1");
		CompletableFuture.runAsync(handle::close, executor()).get(5, TimeUnit.SECONDS);
		assertThat(handle.isHeld()).isFalse();
		assertThat(LockKeyValues.holder(locks().cli("order:1"), "redis-lock:{order:1}")).isNull();
	}

	@Test
	default void closeIsIdempotent() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		LockHandle handle = template.lock("order:1");
		handle.close();
		LockHandle next = otherNode.lock("order:1");
		handle.close();
		assertThat(next.isHeld()).isTrue();
		assertThat(LockKeyValues.holder(locks().cli("order:1"), "redis-lock:{order:1}")).isNotNull();
		next.close();
	}

	@Test
	default void exceptionFromActionReleasesAndReachesCaller() {
		LockTemplate template = locks().template();
		IllegalStateException failure = new IllegalStateException("boom");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> template.run("order:1", () -> {
			throw failure;
		})).isSameAs(failure);
		assertThat(LockKeyValues.holder(locks().cli("order:1"), "redis-lock:{order:1}")).isNull();
		assertThat(locks().diagnostics(template).heldCount()).isZero();
	}

	@Test
	default void keysUseThePrefixAndAHashTag() {
		LockTemplate prefixed = locks().template(LockOptions.defaults().withKeyPrefix("billing:"));
		try (LockHandle handle = prefixed.lock("invoice:7")) {
			assertThat(locks().keys("*")).containsExactly("billing:{invoice:7}");
		}
		assertThat(locks().keys("*")).containsExactly("billing:{invoice:7}");
	}

	@Test
	default void lockTimesOutWithKeyAndWaitTime() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		try (LockHandle handle = otherNode.lock("order:1")) {
			Duration waitTime = Duration.ofMillis(200);
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> template.lock(LockRequest.of("order:1").waitTime(waitTime)))
				.satisfies((ex) -> {
					assertThat(ex.getKey()).isEqualTo("order:1");
					assertThat(ex.getWaitTime()).isEqualTo(waitTime);
					assertThat(ex.getMessage()).contains("order:1").contains("200 ms");
				});
		}
		assertThat(locks().diagnostics(template).heldCount()).isZero();
	}

	@Test
	default void tryLockWithZeroWaitMakesOneAttempt() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		try (LockHandle handle = otherNode.lock("order:1")) {
			long before = locks().roundTrips();
			assertThat(template.tryLock("order:1", Duration.ZERO)).isEmpty();
			assertThat(locks().roundTrips() - before).isEqualTo(1);
		}
	}

	@Test
	default void nonReentrantLockIsNotReenteredByItsOwnThread() {
		LockTemplate template = locks().template();
		try (LockHandle handle = template.lock(LockRequest.of("order:1").reentrant(false))) {
			assertThat(template.tryLock("order:1", Duration.ZERO)).isEmpty();
			assertThat(template.tryLock(LockRequest.of("order:1").waitTime(Duration.ZERO).reentrant(false))).isEmpty();
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(template.tryLock("order:1", Duration.ZERO)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	default void closingTheTemplateShutsItsEngineDownAndClosingEitherAgainHasNoEffect() throws Exception {
		RedisLockEngine engine = new RedisLockEngine(locks().connectionFactory());
		LockTemplate template = new LockTemplate(engine);
		LockHandle held = template.lock("order:1");
		// The holder finishes within the grace, once the shutdown refuses new locks.
		Future<?> holder = executor().submit(() -> {
			await().atMost(Duration.ofSeconds(2))
				.until(() -> isRefused(() -> template.tryLock("order:1", Duration.ZERO)));
			held.close();
		});
		template.close();
		holder.get(1, TimeUnit.SECONDS);
		assertThatNoException().isThrownBy(() -> {
			engine.close();
			template.close();
		});
		assertThat(LockKeyValues.holder(locks().cli("order:1"), "redis-lock:{order:1}")).isNull();
	}

	private static boolean isRefused(Runnable acquisition) {
		try {
			acquisition.run();
			return false;
		}
		catch (LockShutdownException ex) {
			return true;
		}
	}

}
