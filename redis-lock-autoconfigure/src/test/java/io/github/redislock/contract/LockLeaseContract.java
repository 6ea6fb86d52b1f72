package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Leases: the watchdog renews locks on every primary while they are held, a fixed lease
 * runs out and the lock passes on, and a holder learns when its lock was lost.
 */
interface LockLeaseContract extends LockContract {

	/**
	 * Watchdog lease of these tests: a renewal may come 2 s late (as late as the command
	 * timeout allows) before the lease runs out.
	 */
	Duration LEASE = Duration.ofMillis(2500);

	/** Renewal interval of these tests' watchdog. */
	Duration RENEW_INTERVAL = Duration.ofMillis(500);

	/**
	 * A lease long enough that a loss seen within a few seconds was seen by a renewal,
	 * not by the lease running out in this JVM.
	 */
	Duration LONG_LEASE = Duration.ofSeconds(10);

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	Duration MARGIN = Duration.ofSeconds(1);

	/**
	 * The watchdog keeps locks on every primary past several of their leases, renewing
	 * each about every interval, and lets them go when they are released.
	 */
	@Test
	default void watchdogKeepsTheLockPastItsLeaseWhileHeld() {
		CountingObserver observer = new CountingObserver();
		LockTemplate renewing = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL), observer);
		LockTemplate otherNode = locks().template();
		List<String> names = locks().names("order", 1);
		List<LockHandle> handles = names.stream().map(renewing::lock).toList();
		List<RedisCli> clis = names.stream().map(locks()::cli).toList();
		List<String> owners = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			owners.add(LockKeyValues.holder(clis.get(i), LockFixture.lockKey(names.get(i))));
		}
		// Held by their owners at every check, until two renewals past the first lease: a
		// lock that lapsed once cannot come back with the same owner token.
		Duration past = LEASE.plus(RENEW_INTERVAL.multipliedBy(2));
		await().during(past).atMost(past.plus(MARGIN)).until(() -> {
			for (int i = 0; i < names.size(); i++) {
				if (!handles.get(i).isHeld() || !owners.get(i)
					.equals(LockKeyValues.holder(clis.get(i), LockFixture.lockKey(names.get(i))))) {
					return false;
				}
			}
			return true;
		});
		for (int i = 0; i < names.size(); i++) {
			String name = names.get(i);
			assertThat(clis.get(i).pttl(LockFixture.lockKey(name))).as(name).isBetween(1L, LEASE.toMillis());
			assertThat(observer.renewals(name)).as(name).isGreaterThanOrEqualTo(5);
			assertThat(otherNode.tryLock(name, Duration.ZERO)).isEmpty();
		}
		assertThat(locks().diagnostics(renewing).renewedCount()).isEqualTo(names.size());
		handles.forEach(LockHandle::close);
		assertThat(locks().diagnostics(renewing).renewedCount()).isZero();
		for (int i = 0; i < names.size(); i++) {
			assertThat(LockKeyValues.holder(clis.get(i), LockFixture.lockKey(names.get(i)))).isNull();
		}
	}

	@Test
	default void watchdogLeaseIsTheConfiguredOne() {
		LockTemplate defaults = locks().template();
		try (LockHandle handle = defaults.lock("order:1")) {
			assertThat(locks().cli("order:1").pttl("redis-lock:{order:1}")).isBetween(25_000L, 30_000L);
		}
	}

	@Test
	default void fixedLeaseIsNotRenewedAndRunsOut() {
		LockTemplate template = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		RedisCli cli = locks().cli("order:1");
		LockHandle handle = template.lock(LockRequest.of("order:1").leaseTime(Duration.ofMillis(400)));
		assertThat(locks().diagnostics(template).renewedCount()).isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> cli.get("redis-lock:{order:1}") == null);
		assertThat(handle.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
	}

	/**
	 * A fixed lease runs out on every primary, and a waiter on another node gets the lock
	 * then, not before and not long after: the waiter slept for the lease it was told.
	 * The holder learns it lost the lock.
	 */
	@Test
	default void fixedLeaseRunsOutAndTheLockPassesOnToAWaiter() {
		Duration lease = Duration.ofMillis(800);
		LockTemplate template = locks().template();
		LockTemplate waiterNode = locks().template();
		for (String name : locks().names("leased", 1)) {
			// The lease starts when Redis runs the acquire, after it was asked for.
			long asked = System.nanoTime();
			LockHandle handle = template.lock(LockRequest.of(name).leaseTime(lease));
			assertThat(locks().diagnostics(template).renewedCount()).isZero();
			try (LockHandle next = waiterNode.lock(LockRequest.of(name).waitTime(Duration.ofSeconds(10)))) {
				// Less a few milliseconds for Redis' clock
				assertThat(Duration.ofNanos(System.nanoTime() - asked)).as(name)
					.isBetween(lease.minusMillis(10), lease.plus(Duration.ofSeconds(2)));
				assertThat(handle.isHeld()).isFalse();
				assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
			}
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		}
	}

	/**
	 * A lock whose key is deleted behind its holder's back is found lost by the watchdog
	 * at its next renewal, within a renewal interval and a margin, far sooner than its 10
	 * s lease would run out in this JVM; the observer hears of it, it is logged, and
	 * closing the handle then throws.
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	default void holderSeesLossWithinARenewalIntervalAndItIsLogged(CapturedOutput output) {
		CountingObserver observer = new CountingObserver();
		LockTemplate renewing = locks().template(LockOptions.defaults().withWatchdog(LONG_LEASE, RENEW_INTERVAL),
				observer);
		for (String name : locks().names("order", 1)) {
			LockHandle handle = renewing.lock(name);
			assertThat(locks().cli(name).command("DEL", LockFixture.lockKey(name))).isEqualTo(1L);
			await().atMost(RENEW_INTERVAL.plus(MARGIN)).until(() -> !handle.isHeld());
			// The observer hears of the loss just after the handle shows it, and the log
			// right after, both on the watchdog's thread.
			await().atMost(Duration.ofSeconds(5)).until(() -> observer.losses(name) == 1);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(output).contains("WARN").contains("Lost lock '" + name + "'"));
			assertThat(locks().diagnostics(renewing).renewedCount()).isZero();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close).satisfies((ex) -> {
				assertThat(ex.getKey()).isEqualTo(name);
				assertThat(ex.getFencingToken()).isEqualTo(handle.fencingToken());
			});
		}
	}

	@Test
	default void lockTakenOverByAnotherOwnerIsReportedLost() {
		LockTemplate renewing = locks().template(LockOptions.defaults().withWatchdog(LONG_LEASE, RENEW_INTERVAL));
		RedisCli cli = locks().cli("order:1");
		LockHandle handle = renewing.lock("order:1");
		cli.command("SET", "redis-lock:{order:1}", "intruder:1", "PX", "10000");
		await().atMost(RENEW_INTERVAL.plus(MARGIN)).until(() -> !handle.isHeld());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		assertThat(LockKeyValues.holder(cli, "redis-lock:{order:1}")).isEqualTo("intruder:1");
	}

	@Test
	default void executeThrowsLockLostAfterTheActionReturns() {
		LockTemplate template = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		RedisCli cli = locks().cli("order:1");
		StringBuilder ran = new StringBuilder();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> template.execute("order:1", () -> {
			cli.command("DEL", "redis-lock:{order:1}");
			await().atMost(LEASE.plus(MARGIN)).until(() -> locks().diagnostics(template).renewedCount() == 0);
			ran.append("finished");
			return "unprotected result";
		})).satisfies((ex) -> assertThat(ex.getFencingToken()).isPositive());
		assertThat(ran).hasToString("finished");
	}

	@Test
	default void executeWithAFixedLeaseShorterThanTheWorkThrowsLockLost() {
		LockTemplate template = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		RedisCli cli = locks().cli("order:1");
		LockRequest request = LockRequest.of("order:1").leaseTime(Duration.ofMillis(200));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> template.execute(request, () -> {
			await().atMost(Duration.ofSeconds(5)).until(() -> cli.get("redis-lock:{order:1}") == null);
			return "late";
		}));
	}

}
