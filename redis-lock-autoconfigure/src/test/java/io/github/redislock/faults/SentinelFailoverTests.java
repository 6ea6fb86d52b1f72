package io.github.redislock.faults;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.SentinelLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisSentinels;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What holders see when Sentinel fails the primary over: a lock that reached the replica
 * stays held and renewed, and a holder whose lock did not survive is told it lost it.
 * Each test starts a Sentinel group of its own, since it kills its primary. The lock's
 * contract itself runs on a Sentinel group in {@code SentinelLockContractTests}.
 */
class SentinelFailoverTests {

	/** Usually 5 s; an election with split votes is retried after 6 s. */
	private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(25);

	private final CountingObserver observer = new CountingObserver();

	/**
	 * After Sentinel promotes the replica, the watchdog reconnects and renews a lock that
	 * had been replicated; it still excludes others, other locks can be taken, and its
	 * release works on the new primary.
	 */
	@Test
	void afterFailoverTheWatchdogKeepsRenewingALockThatReachedTheReplica() throws Exception {
		// Outlasts the failover: 3 s until the sentinels see the primary down, an
		// election, and the client finding the new primary, on a busy machine.
		Duration lease = Duration.ofSeconds(20);
		try (RedisSentinels failing = RedisSentinels.start(); SentinelLocks locks = new SentinelLocks(failing)) {
			LockTemplate holder = locks.template(LockOptions.defaults().withWatchdog(lease, Duration.ofMillis(500)),
					this.observer);
			LockTemplate other = locks.template(LockOptions.defaults(), new CountingObserver());
			LockHandle handle = holder.lock("survivor");
			RedisServer replica = failing.replica();
			String owner;
			try (RedisCli cli = failing.primary().cli()) {
				owner = LockKeyValues.holder(cli, "redis-lock:{survivor}");
			}
			awaitReplicated(replica, "redis-lock:{survivor}", owner);
			failing.primary().kill();
			int renewalsBeforeFailover = this.observer.renewals("survivor");
			assertThat(failing.awaitFailover(FAILOVER_TIMEOUT)).isEqualTo(replica);
			try (RedisCli cli = replica.cli()) {
				// Renewals that reached the new primary: the old one is dead.
				await().atMost(Duration.ofSeconds(10))
					.until(() -> this.observer.renewals("survivor") >= renewalsBeforeFailover + 2);
				assertThat(LockKeyValues.holder(cli, "redis-lock:{survivor}")).isEqualTo(owner);
				assertThat(cli.pttl("redis-lock:{survivor}")).isGreaterThan(lease.minusSeconds(2).toMillis());
				assertThat(handle.isHeld()).isTrue();
				assertThat(this.observer.losses("survivor")).isZero();
				assertThat(other.tryLock("survivor", Duration.ZERO)).isEmpty();
				try (LockHandle fresh = other.lock(LockRequest.of("fresh").waitTime(Duration.ofSeconds(5)))) {
					assertThat(LockKeyValues.holder(cli, "redis-lock:{fresh}")).isNotNull();
				}
				handle.close();
				assertThat(LockKeyValues.holder(cli, "redis-lock:{survivor}")).isNull();
				try (LockHandle next = other.lock(LockRequest.of("survivor").waitTime(Duration.ZERO))) {
					assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
				}
			}
		}
	}

	/**
	 * A holder whose lock is missing on the new primary, as when the grant had not been
	 * replicated before the old one died, learns at its next renewal that it lost it, and
	 * another node takes it with a greater fencing token.
	 */
	@Test
	void afterFailoverAHolderWhoseLockDidNotSurviveLearnsItLostIt() throws Exception {
		Duration renewInterval = Duration.ofMillis(500);
		try (RedisSentinels failing = RedisSentinels.start(); SentinelLocks locks = new SentinelLocks(failing)) {
			LockTemplate holder = locks
				.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(10), renewInterval), this.observer);
			LockTemplate other = locks.template(LockOptions.defaults(), new CountingObserver());
			LockHandle handle = holder.lock("unreplicated");
			RedisServer replica = failing.replica();
			failing.primary().kill();
			assertThat(failing.awaitFailover(FAILOVER_TIMEOUT)).isEqualTo(replica);
			try (RedisCli cli = replica.cli()) {
				// Deterministically what asynchronous replication may do: the grant never
				// reached the replica.
				cli.command("DEL", "redis-lock:{unreplicated}");
				// The observer hears of the loss just after the handle shows it.
				await().atMost(Duration.ofSeconds(10)).until(() -> this.observer.losses("unreplicated") == 1);
				assertThat(handle.isHeld()).isFalse();
				try (LockHandle next = other.lock(LockRequest.of("unreplicated").waitTime(Duration.ZERO))) {
					assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
					assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
						.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("unreplicated"));
					assertThat(next.isHeld()).isTrue();
					assertThat(LockKeyValues.holder(cli, "redis-lock:{unreplicated}")).isNotNull();
				}
			}
		}
	}

	private static void awaitReplicated(RedisServer replica, String key, String owner) {
		try (RedisCli cli = replica.cli()) {
			await().atMost(Duration.ofSeconds(5)).until(() -> owner.equals(LockKeyValues.holder(cli, key)));
		}
	}

}
