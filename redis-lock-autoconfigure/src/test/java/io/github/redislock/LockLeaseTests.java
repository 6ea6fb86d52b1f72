package io.github.redislock;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Leases: the watchdog renews a lock while it is held, a fixed lease runs out, and a
 * holder learns when its lock was lost.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class LockLeaseTests {

	/**
	 * Watchdog lease of these tests: a renewal may come 2 s late (as late as the command
	 * timeout allows) before the lease runs out.
	 */
	private static final Duration LEASE = Duration.ofMillis(2500);

	private static final Duration RENEW_INTERVAL = Duration.ofMillis(500);

	/**
	 * A lease long enough that a loss seen within a few seconds was seen by a renewal,
	 * not by the lease running out in this JVM.
	 */
	private static final Duration LONG_LEASE = Duration.ofSeconds(10);

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	private StandaloneLocks locks;

	private LockTemplate template;

	private RedisCli cli;

	@BeforeEach
	void setUp(RedisServer server) {
		this.locks = new StandaloneLocks(server);
		this.template = this.locks.template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		this.cli = this.locks.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void watchdogKeepsTheLockPastItsLeaseWhileHeld() {
		try (LockHandle handle = this.template.lock("order:1")) {
			String owner = this.cli.get("redis-lock:{order:1}");
			// Held by its owner at every check, until two renewals past the first lease:
			// a
			// lock that lapsed once cannot come back with the same owner token.
			Duration past = LEASE.plus(RENEW_INTERVAL.multipliedBy(2));
			await().during(past)
				.atMost(past.plus(MARGIN))
				.until(() -> handle.isHeld() && owner.equals(this.cli.get("redis-lock:{order:1}")));
			assertThat(this.locks.diagnostics(this.template).renewedCount()).isEqualTo(1);
		}
		assertThat(this.locks.diagnostics(this.template).renewedCount()).isZero();
		assertThat(this.cli.get("redis-lock:{order:1}")).isNull();
	}

	@Test
	void watchdogLeaseIsTheConfiguredOne() {
		LockTemplate defaults = this.locks.template();
		try (LockHandle handle = defaults.lock("order:1")) {
			assertThat(this.cli.pttl("redis-lock:{order:1}")).isBetween(25_000L, 30_000L);
		}
	}

	@Test
	void fixedLeaseIsNotRenewedAndRunsOut() {
		LockHandle handle = this.template.lock(LockRequest.of("order:1").leaseTime(Duration.ofMillis(400)));
		assertThat(this.locks.diagnostics(this.template).renewedCount()).isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.cli.get("redis-lock:{order:1}") == null);
		assertThat(handle.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
	}

	/**
	 * The loss is seen at the next renewal: within a renewal interval and a margin, far
	 * sooner than the 10 s lease would run out in this JVM.
	 */
	@Test
	void holderSeesLossWithinARenewalIntervalAndItIsLogged(CapturedOutput output) {
		LockTemplate renewing = this.locks.template(LockOptions.defaults().withWatchdog(LONG_LEASE, RENEW_INTERVAL));
		LockHandle handle = renewing.lock("order:1");
		this.cli.command("DEL", "redis-lock:{order:1}");
		await().atMost(RENEW_INTERVAL.plus(MARGIN)).until(() -> !handle.isHeld());
		// Logged right after the lease is marked lost, on the watchdog's thread.
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(output).contains("WARN").contains("Lost lock 'order:1'"));
		assertThat(this.locks.diagnostics(renewing).renewedCount()).isZero();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
			.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("order:1"));
	}

	@Test
	void lockTakenOverByAnotherOwnerIsReportedLost() {
		LockTemplate renewing = this.locks.template(LockOptions.defaults().withWatchdog(LONG_LEASE, RENEW_INTERVAL));
		LockHandle handle = renewing.lock("order:1");
		this.cli.command("SET", "redis-lock:{order:1}", "intruder:1", "PX", "10000");
		await().atMost(RENEW_INTERVAL.plus(MARGIN)).until(() -> !handle.isHeld());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		assertThat(this.cli.get("redis-lock:{order:1}")).isEqualTo("intruder:1");
	}

	@Test
	void executeThrowsLockLostAfterTheActionReturns() {
		StringBuilder ran = new StringBuilder();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> this.template.execute("order:1", () -> {
			this.cli.command("DEL", "redis-lock:{order:1}");
			await().atMost(LEASE.plus(MARGIN)).until(() -> this.locks.diagnostics(this.template).renewedCount() == 0);
			ran.append("finished");
			return "unprotected result";
		})).satisfies((ex) -> assertThat(ex.getFencingToken()).isPositive());
		assertThat(ran).hasToString("finished");
	}

	@Test
	void executeWithAFixedLeaseShorterThanTheWorkThrowsLockLost() {
		LockRequest request = LockRequest.of("order:1").leaseTime(Duration.ofMillis(200));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> this.template.execute(request, () -> {
			await().atMost(Duration.ofSeconds(5)).until(() -> this.cli.get("redis-lock:{order:1}") == null);
			return "late";
		}));
	}

}
