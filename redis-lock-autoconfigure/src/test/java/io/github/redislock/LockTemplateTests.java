package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.CommandStats;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * Acquire, release, ownership and reentrancy of {@link LockTemplate} on a real Redis.
 */
@RedisTest
class LockTemplateTests {

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
	void executeRunsActionUnderLockAndReleases() {
		String result = this.template.execute("report", () -> {
			assertThat(this.cli.get("redis-lock:{report}")).isNotNull();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(this.cli.get("redis-lock:{report}")).isNull();
	}

	@Test
	void uncontendedLockAndReleaseAreOneScriptEach() {
		this.template.run("warm-up", () -> {
		});
		long before = CommandStats.roundTrips(this.cli);
		long evalShaBefore = CommandStats.commandCalls(this.cli).get("evalsha");
		try (LockHandle handle = this.template.lock("order:1")) {
			assertThat(CommandStats.roundTrips(this.cli) - before).isEqualTo(1);
		}
		assertThat(CommandStats.roundTrips(this.cli) - before).isEqualTo(2);
		assertThat(CommandStats.commandCalls(this.cli).get("evalsha") - evalShaBefore).isEqualTo(2);
	}

	@Test
	void reentrantAcquireMakesNoRoundTrip() {
		try (LockHandle outer = this.template.lock("order:1")) {
			long before = CommandStats.roundTrips(this.cli);
			try (LockHandle inner = this.template.lock("order:1")) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(CommandStats.roundTrips(this.cli)).isEqualTo(before);
		}
	}

	@Test
	void reentrantLockIsReleasedInRedisOnlyByOutermostClose() {
		LockHandle outer = this.template.lock("order:1");
		LockHandle inner = this.template.lock("order:1");
		inner.close();
		assertThat(inner.isHeld()).isFalse();
		assertThat(outer.isHeld()).isTrue();
		assertThat(this.otherNode.tryLock("order:1", Duration.ZERO)).isEmpty();
		outer.close();
		assertThat(this.otherNode.tryLock("order:1", Duration.ZERO)).isPresent();
	}

	@Test
	void heldLockExcludesOtherNodesAndOtherThreads() throws Exception {
		try (LockHandle handle = this.template.lock("order:1")) {
			assertThat(this.otherNode.tryLock("order:1", Duration.ZERO)).isEmpty();
			Optional<LockHandle> fromOtherThread = CompletableFuture
				.supplyAsync(() -> this.template.tryLock("order:1", Duration.ZERO))
				.get(5, TimeUnit.SECONDS);
			assertThat(fromOtherThread).isEmpty();
		}
	}

	/**
	 * A holder whose lease ran out in Redis, unknown to it, releases through the real
	 * release path with its own owner token: the lock that another node took meanwhile is
	 * left with its owner and lease, and only the late holder hears of the loss.
	 */
	@Test
	void releaseByAnotherOwnerLeavesLockHeld() {
		LockHandle late = this.template.lock("order:1");
		// No renewal comes for 10 s (default watchdog), so the handle still counts as
		// held.
		this.cli.command("PEXPIRE", "redis-lock:{order:1}", "1");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.cli.get("redis-lock:{order:1}") == null);
		assertThat(late.isHeld()).isTrue();
		LockHandle current = this.otherNode.lock("order:1");
		String owner = this.cli.get("redis-lock:{order:1}");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(late::close)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(late.fencingToken()));
		assertThat(this.cli.get("redis-lock:{order:1}")).isEqualTo(owner);
		assertThat(this.cli.pttl("redis-lock:{order:1}")).isPositive();
		assertThat(current.isHeld()).isTrue();
		assertThat(this.template.tryLock("order:1", Duration.ZERO)).isEmpty();
		// Its own lock all along: the release succeeds and reports no loss.
		current.close();
		assertThat(this.cli.get("redis-lock:{order:1}")).isNull();
	}

	@Test
	void closingAnotherNodesHandleDoesNotReleaseMine() {
		LockHandle mine = this.template.lock("order:1");
		this.cli.command("DEL", "redis-lock:{order:1}");
		LockHandle theirs = this.otherNode.lock("order:1");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(mine::close);
		assertThat(theirs.isHeld()).isTrue();
		assertThat(this.cli.get("redis-lock:{order:1}")).isNotNull();
		theirs.close();
	}

	@Test
	void ownerTokensDifferPerAcquisitionOnOneThread() {
		String first;
		try (LockHandle handle = this.template.lock("order:1")) {
			first = this.cli.get("redis-lock:{order:1}");
		}
		try (LockHandle handle = this.template.lock("order:1")) {
			String second = this.cli.get("redis-lock:{order:1}");
			assertThat(second).isNotEqualTo(first).matches("[0-9a-f]{16}:[0-9]+");
			assertThat(second.substring(0, 16)).isEqualTo(first.substring(0, 16));
		}
	}

	@Test
	void handleCanBeClosedFromAnotherThread() throws Exception {
		LockHandle handle = this.template.lock("order:1");
		CompletableFuture.runAsync(handle::close).get(5, TimeUnit.SECONDS);
		assertThat(handle.isHeld()).isFalse();
		assertThat(this.cli.get("redis-lock:{order:1}")).isNull();
	}

	@Test
	void closeIsIdempotent() {
		LockHandle handle = this.template.lock("order:1");
		handle.close();
		LockHandle next = this.otherNode.lock("order:1");
		handle.close();
		assertThat(next.isHeld()).isTrue();
		assertThat(this.cli.get("redis-lock:{order:1}")).isNotNull();
		next.close();
	}

	@Test
	void exceptionFromActionReleasesAndReachesCaller() {
		IllegalStateException failure = new IllegalStateException("boom");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.template.run("order:1", () -> {
			throw failure;
		})).isSameAs(failure);
		assertThat(this.cli.get("redis-lock:{order:1}")).isNull();
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void keysUseThePrefixAndAHashTag(RedisServer server) {
		LockTemplate prefixed = this.locks.template(LockOptions.defaults().withKeyPrefix("billing:"));
		try (LockHandle handle = prefixed.lock("invoice:7")) {
			assertThat(this.cli.keys("*")).containsExactlyInAnyOrder("billing:{invoice:7}",
					"billing:{invoice:7}:fence");
		}
	}

	@Test
	void lockTimesOutWithKeyAndWaitTime() {
		try (LockHandle handle = this.otherNode.lock("order:1")) {
			Duration waitTime = Duration.ofMillis(200);
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> this.template.lock(LockRequest.of("order:1").waitTime(waitTime)))
				.satisfies((ex) -> {
					assertThat(ex.getKey()).isEqualTo("order:1");
					assertThat(ex.getWaitTime()).isEqualTo(waitTime);
					assertThat(ex.getMessage()).contains("order:1").contains("200 ms");
				});
		}
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void tryLockWithZeroWaitMakesOneAttempt() {
		try (LockHandle handle = this.otherNode.lock("order:1")) {
			long before = CommandStats.roundTrips(this.cli);
			assertThat(this.template.tryLock("order:1", Duration.ZERO)).isEmpty();
			assertThat(CommandStats.roundTrips(this.cli) - before).isEqualTo(1);
		}
	}

	@Test
	void nonReentrantLockIsNotReenteredByItsOwnThread() {
		try (LockHandle handle = this.template.lock(LockRequest.of("order:1").reentrant(false))) {
			assertThat(this.template.tryLock("order:1", Duration.ZERO)).isEmpty();
			assertThat(this.template.tryLock(LockRequest.of("order:1").waitTime(Duration.ZERO).reentrant(false)))
				.isEmpty();
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(this.template.tryLock("order:1", Duration.ZERO)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void closingTheTemplateClosesItsEngineAndClosingEitherAgainHasNoEffect() {
		RedisLockEngine engine = new RedisLockEngine(this.locks.connectionFactory());
		LockTemplate template = new LockTemplate(engine);
		LockHandle held = template.lock("order:1");
		template.close();
		assertThatNoException().isThrownBy(() -> {
			engine.close();
			template.close();
		});
		// Left to expire with its lease.
		assertThat(held.fencingToken()).isPositive();
		assertThat(this.cli.pttl("redis-lock:{order:1}")).isPositive();
	}

}
