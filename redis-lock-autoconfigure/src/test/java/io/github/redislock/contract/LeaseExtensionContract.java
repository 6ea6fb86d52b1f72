package io.github.redislock.contract;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockMode;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Extending a lease ({@link LockHandle#extend}) of every kind: the lease is set from now,
 * longer or shorter, with the same fencing token, and a lock already lost cannot be
 * extended.
 */
interface LeaseExtensionContract extends LockContract {

	/** A fixed lease that these tests outlast when it is extended. */
	Duration SHORT_LEASE = Duration.ofMillis(1000);

	/** What the tests extend leases to. */
	Duration EXTENDED = Duration.ofSeconds(20);

	/** One request of each kind, with a short fixed lease. */
	static List<LockRequest> everyKind(String name) {
		return List.of(LockRequest.of(name + ":exclusive").leaseTime(SHORT_LEASE),
				LockRequest.of(name + ":fair").fair(true).leaseTime(SHORT_LEASE),
				LockRequest.read(name + ":read").leaseTime(SHORT_LEASE),
				LockRequest.write(name + ":write").leaseTime(SHORT_LEASE),
				LockRequest.permit(name + ":permit", 2).leaseTime(SHORT_LEASE));
	}

	/** A request that the given one's lock excludes. */
	static LockRequest conflicting(LockRequest request) {
		return switch (request.mode()) {
			case EXCLUSIVE -> LockRequest.of(request.key());
			case READ, WRITE -> LockRequest.write(request.key());
			case PERMIT -> LockRequest.permit(request.key(), 1);
		};
	}

	/** The Redis key that carries the lease of a request's lock. */
	static String leaseKey(LockRequest request) {
		String key = LockFixture.lockKey(request.key());
		return switch (request.mode()) {
			case EXCLUSIVE -> key;
			case READ, WRITE -> key + ":rw";
			case PERMIT -> key + ":permits";
		};
	}

	@Test
	default void extendSetsTheLeaseFromNowWithTheSameFencingTokenForEveryKind() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		List<LockRequest> requests = everyKind("order");
		List<LockHandle> handles = requests.stream().map(template::lock).toList();
		for (int i = 0; i < requests.size(); i++) {
			LockRequest request = requests.get(i);
			LockHandle handle = handles.get(i);
			long token = handle.fencingToken();
			handle.extend(EXTENDED);
			assertThat(handle.fencingToken()).isEqualTo(token);
			assertThat(locks().cli(request.key()).pttl(leaseKey(request))).as(request.key())
				.isGreaterThan(EXTENDED.toMillis() / 2);
			assertThat(otherNode.remainingLease(request.key())).as(request.key())
				.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(EXTENDED.dividedBy(2)));
		}
		// Held past the lease they were acquired with, in this JVM's view too.
		await().during(SHORT_LEASE.plusMillis(500))
			.atMost(SHORT_LEASE.plusSeconds(2))
			.until(() -> handles.stream().allMatch(LockHandle::isHeld));
		for (int i = 0; i < requests.size(); i++) {
			LockRequest request = requests.get(i);
			assertThat(otherNode.tryLock(conflicting(request).waitTime(Duration.ZERO))).as(request.key()).isEmpty();
			handles.get(i).close();
			assertThat(otherNode.isLocked(request.key())).as(request.key()).isFalse();
		}
	}

	@Test
	default void extendCanShortenTheLeaseAndTheLockThenPassesOn() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		LockHandle handle = template.lock(LockRequest.of("order:1").leaseTime(Duration.ofSeconds(30)));
		handle.extend(Duration.ofMillis(300));
		assertThat(otherNode.tryLock("order:1", Duration.ofSeconds(2))).hasValueSatisfying(LockHandle::close);
		assertThat(handle.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
	}

	@Test
	default void extendOfARenewedLockToLessThanWasLeftKeepsItHeld() {
		LockTemplate template = locks()
			.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(6), Duration.ofSeconds(2)));
		LockTemplate otherNode = locks().template();
		LockHandle handle = template.lock("order:1");
		RedisCli cli = locks().cli("order:1");
		String key = LockFixture.lockKey("order:1");
		// Once the watchdog renewed it, its next renewal is 2 s away; the extension lasts
		// 300 ms.
		await().atMost(Duration.ofSeconds(4)).until(() -> cli.pttl(key) < 4500);
		await().atMost(Duration.ofSeconds(4)).until(() -> cli.pttl(key) > 5000);
		handle.extend(Duration.ofMillis(300));
		await().atMost(Duration.ofSeconds(1)).until(() -> cli.pttl(key) > 1000);
		assertThat(otherNode.tryLock("order:1", Duration.ofSeconds(3))).isEmpty();
		assertThat(handle.isHeld()).isTrue();
		handle.close();
	}

	@Test
	default void extendOfALockTakenByAnotherOwnerThrowsLockLostException() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		LockHandle handle = template.lock(LockRequest.of("order:1").leaseTime(Duration.ofSeconds(30)));
		// Redis lost it, as after a failover without replication; this JVM's estimate
		// says
		// it is still held, so the script finds out.
		locks().cli("order:1").command("DEL", LockFixture.lockKey("order:1"));
		LockHandle successor = otherNode.lock("order:1");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> handle.extend(EXTENDED));
		assertThat(handle.isHeld()).isFalse();
		assertThat(successor.isHeld()).isTrue();
		assertThat(locks().cli("order:1").pttl(LockFixture.lockKey("order:1")))
			.isLessThanOrEqualTo(LockOptions.DEFAULT_WATCHDOG_LEASE.toMillis());
		successor.close();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
	}

	@Test
	default void extendOfALeaseThatRanOutThrowsLockLostException() {
		LockTemplate template = locks().template();
		LockHandle handle = template.lock(LockRequest.of("order:1").leaseTime(Duration.ofMillis(200)));
		await().atMost(Duration.ofSeconds(2)).until(() -> !handle.isHeld());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> handle.extend(EXTENDED));
		// This JVM counts the lease from when it sent the acquisition, a little before
		// Redis did, so the key may outlive isHeld() by a moment.
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(
					() -> assertThat(LockKeyValues.holder(locks().cli("order:1"), LockFixture.lockKey("order:1")))
						.isNull());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
	}

	@Test
	default void extendRejectsALeaseThatIsNotPositiveAndAClosedHandle() {
		LockTemplate template = locks().template();
		LockHandle handle = template.lock(LockRequest.of("order:1").leaseTime(Duration.ofSeconds(30)));
		assertThatIllegalArgumentException().isThrownBy(() -> handle.extend(Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> handle.extend(Duration.ofSeconds(-1)));
		handle.close();
		assertThatIllegalStateException().isThrownBy(() -> handle.extend(EXTENDED));
	}

	@Test
	default void extendOfARenewedLockSetsTheLeaseOnceAndTheWatchdogKeepsRenewing() {
		Duration lease = Duration.ofMillis(2500);
		LockTemplate template = locks().template(LockOptions.defaults().withWatchdog(lease, Duration.ofMillis(500)));
		LockHandle handle = template.lock("order:1");
		RedisCli cli = locks().cli("order:1");
		handle.extend(EXTENDED);
		assertThat(cli.pttl(LockFixture.lockKey("order:1"))).isGreaterThan(lease.toMillis());
		// The watchdog's next renewal sets its own lease again.
		await().atMost(Duration.ofSeconds(2)).until(() -> cli.pttl(LockFixture.lockKey("order:1")) <= lease.toMillis());
		await().during(lease.plusMillis(500)).atMost(lease.plusSeconds(2)).until(handle::isHeld);
		handle.close();
	}

	@Test
	default void isLockedTellsWhetherAnyoneHoldsALockOfAnyKindInOneRoundTrip() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		for (LockRequest request : everyKind("order")) {
			assertThat(otherNode.isLocked(request.key())).isFalse();
			assertThat(otherNode.remainingLease(request.key())).isEmpty();
			try (LockHandle handle = template.lock(request.leaseTime(Duration.ofSeconds(10)))) {
				long before = locks().roundTrips();
				assertThat(otherNode.isLocked(request.key())).as(request.key()).isTrue();
				assertThat(locks().roundTrips() - before).isEqualTo(1);
				assertThat(otherNode.remainingLease(request.key())).as(request.key())
					.hasValueSatisfying(
							(left) -> assertThat(left).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10)));
			}
			assertThat(otherNode.isLocked(request.key())).as(request.key()).isFalse();
		}
	}

	@Test
	default void isLockedCountsEveryReaderAndNotAReaderWhoseLeaseEnded() {
		LockTemplate template = locks().template();
		LockTemplate otherNode = locks().template();
		LockHandle shortReader = template.lock(LockRequest.read("report").leaseTime(Duration.ofMillis(300)));
		try (LockHandle longReader = otherNode.lock(LockRequest.read("report").leaseTime(Duration.ofSeconds(10)))) {
			assertThat(template.remainingLease("report"))
				.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofSeconds(5)));
		}
		// The short reader's entry stays in the hash after its lease until an acquisition
		// tidies up; it no longer counts.
		await().atMost(Duration.ofSeconds(2)).until(() -> !template.isLocked("report"));
		assertThat(shortReader.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(shortReader::close);
	}

}
