package io.github.redislock;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Bad input fails at once with a message naming the argument, and an unreachable Redis
 * fails within the command timeout leaving nothing locked or subscribed.
 */
@RedisTest
class LockArgumentTests {

	@Test
	void nullKeyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of(null))
			.withMessage("Lock key must not be null. Give the name of the resource to lock, such as \"order:42\"");
	}

	@Test
	void blankKeyIsRejected(RedisServer server) throws Exception {
		try (StandaloneLocks locks = new StandaloneLocks(server)) {
			LockTemplate template = locks.template();
			assertThatIllegalArgumentException().isThrownBy(() -> template.lock(" "))
				.withMessageContaining("key must not be blank");
			assertThatIllegalArgumentException().isThrownBy(() -> template.execute("", () -> "x"))
				.withMessageContaining("key must not be blank");
			assertThat(locks.cli().dbSize()).isZero();
		}
	}

	@Test
	void negativeWaitTimeIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("order:1").waitTime(Duration.ofMillis(-1)))
			.withMessageContaining("waitTime");
	}

	@Test
	void zeroOrNegativeLeaseIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("order:1").leaseTime(Duration.ZERO))
			.withMessageContaining("leaseTime");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.of("order:1").leaseTime(Duration.ofSeconds(-5)))
			.withMessageContaining("leaseTime");
	}

	@Test
	void blankNameIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("order:1").name(" "))
			.withMessageContaining("name for observations must not be blank");
	}

	@Test
	void nameIsKeptByEveryOtherOption() {
		LockRequest request = LockRequest.of("order:1")
			.name("Orders.pay")
			.waitTime(Duration.ZERO)
			.leaseTime(Duration.ofSeconds(1))
			.reentrant(false);
		assertThat(request.name()).isEqualTo("Orders.pay");
		assertThat(request)
			.isEqualTo(LockRequest.of("order:1")
				.waitTime(Duration.ZERO)
				.leaseTime(Duration.ofSeconds(1))
				.reentrant(false)
				.name("Orders.pay"))
			.isNotEqualTo(LockRequest.of("order:1")
				.waitTime(Duration.ZERO)
				.leaseTime(Duration.ofSeconds(1))
				.reentrant(false));
		assertThat(LockRequest.of("order:1").name()).isNull();
	}

	@Test
	void watchdogLeaseNotLongerThanTheRenewIntervalIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockOptions.defaults().withWatchdog(Duration.ofSeconds(5), Duration.ofSeconds(5)))
			.withMessageStartingWith("renewInterval must be shorter than the watchdog lease (PT5S) but was PT5S")
			.withMessageContaining("Use a third of the watchdog lease");
	}

	@Test
	void keyPrefixWithBracesIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.defaults().withKeyPrefix("app:{x}:"))
			.withMessageStartingWith("keyPrefix must not contain '{' or '}'");
	}

	@Test
	void negativeMinReplicasIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockOptions.defaults().withMinReplicas(-1, Duration.ofSeconds(1)))
			.withMessageStartingWith("minReplicas must be zero or positive but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> LockOptions.defaults().withMinReplicas(1, Duration.ZERO))
			.withMessageStartingWith("replicationTimeout must be at least 1 ms");
	}

	@Test
	void permitLimitBelowOneIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.permit("exports", 0))
			.withMessage("Permit limit of 'exports' must be at least 1, but is 0. "
					+ "Give how many may hold a permit of the name at once, 1 or more");
	}

	@Test
	void nullModeIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("order:1").mode(null))
			.withMessage("Lock mode must not be null. Give LockMode.EXCLUSIVE, the default, READ, WRITE or PERMIT");
	}

	@Test
	void fairReadOrWriteLockIsRejectedWhicheverComesFirst() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.read("doc:1").fair(true))
			.withMessage(LockRules.fairMode(true, LockMode.READ).message("Fair ordering of lock 'doc:1'"));
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("doc:1").fair(true).mode(LockMode.WRITE))
			.withMessageContaining("applies to exclusive locks only, but the mode is WRITE")
			.withMessageContaining("Ask for an exclusive lock to be fair");
	}

	@Test
	void unreachableRedisFailsWithinTheCommandTimeoutAndLeavesNothing(@RedisTest.Dedicated RedisServer server)
			throws Exception {
		try (StandaloneLocks locks = new StandaloneLocks(server)) {
			LockTemplate template = locks.template();
			template.run("warm-up", () -> {
			});
			server.kill();
			long start = System.nanoTime();
			assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> template.lock("order:1"))
				.withMessageContaining("order:1")
				.satisfies((ex) -> assertThat(ex.getCause()).isNotNull());
			assertThat(Duration.ofNanos(System.nanoTime() - start))
				.isLessThan(LockFixture.COMMAND_TIMEOUT.plusSeconds(2));
			assertThat(locks.diagnostics(template).heldCount()).isZero();
			assertThat(locks.diagnostics(template).subscribedChannelCount()).isZero();
		}
	}

}
