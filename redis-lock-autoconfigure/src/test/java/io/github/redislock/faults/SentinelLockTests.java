package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.SentinelLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisSentinels;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The lock's contract on a Sentinel-managed primary and replica, reached through Spring
 * Data Redis' sentinel configuration, and what holders see when Sentinel fails the
 * primary over: a lock that reached the replica stays held and renewed, and a holder
 * whose lock did not survive is told it lost it.
 */
class SentinelLockTests {

	/** Usually 5 s; an election with split votes is retried after 6 s. */
	private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(25);

	/**
	 * Time allowed on top of a computed bound, for scheduling on a busy machine; far
	 * below the waits and leases that the bounds tell apart.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	private static RedisSentinels group;

	private SentinelLocks locks;

	private CountingObserver observer;

	private ExecutorService executor;

	private RedisCli primary;

	@BeforeAll
	static void startGroup() {
		group = RedisSentinels.start();
	}

	@AfterAll
	static void closeGroup() {
		group.close();
	}

	@BeforeEach
	void setUp() {
		this.locks = new SentinelLocks(group);
		this.observer = new CountingObserver();
		this.executor = Executors.newCachedThreadPool();
		this.primary = group.primary().cli();
		this.primary.flushAll();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
		this.primary.close();
	}

	/** Threads of two nodes never overlap, so a non-atomic counter loses nothing. */
	@Test
	void twoNodesNeverHoldTheLockAtOnce() throws Exception {
		List<LockTemplate> nodes = List.of(node(), node());
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger counter = new AtomicInteger();
		int threadsPerNode = 2;
		int iterations = 25;
		List<Future<?>> futures = new ArrayList<>();
		for (LockTemplate node : nodes) {
			for (int t = 0; t < threadsPerNode; t++) {
				futures.add(this.executor.submit(() -> {
					for (int i = 0; i < iterations; i++) {
						node.run(LockRequest.of("counter").waitTime(Duration.ofSeconds(20)), () -> {
							if (inside.incrementAndGet() > 1) {
								overlaps.incrementAndGet();
							}
							int value = counter.get();
							LockSupport.parkNanos(200_000);
							counter.set(value + 1);
							inside.decrementAndGet();
						});
					}
				}));
			}
		}
		for (Future<?> future : futures) {
			future.get(60, TimeUnit.SECONDS);
		}
		assertThat(overlaps).hasValue(0);
		assertThat(counter).hasValue(nodes.size() * threadsPerNode * iterations);
	}

	/** A thread re-enters its lock, and Redis releases it only at the outermost close. */
	@Test
	void reentrantLockIsReleasedOnlyByTheOutermostClose() {
		LockTemplate node = node();
		LockTemplate other = node();
		LockHandle outer = node.lock("reentrant");
		LockHandle inner = node.lock("reentrant");
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		inner.close();
		assertThat(outer.isHeld()).isTrue();
		assertThat(this.primary.get("redis-lock:{reentrant}")).isNotNull();
		assertThat(other.tryLock("reentrant", Duration.ZERO)).isEmpty();
		outer.close();
		assertThat(this.primary.get("redis-lock:{reentrant}")).isNull();
		Optional<LockHandle> taken = other.tryLock("reentrant", Duration.ZERO);
		assertThat(taken).isPresent();
		taken.get().close();
	}

	/** A holder whose lease ran out cannot release its successor's lock. */
	@Test
	void onlyTheOwnerReleasesTheLock() {
		LockTemplate node = node();
		LockTemplate successor = node();
		LockHandle expired = node.lock(LockRequest.of("owned").leaseTime(Duration.ofMillis(500)));
		try (LockHandle current = successor.lock(LockRequest.of("owned").waitTime(Duration.ofSeconds(5)))) {
			String owner = this.primary.get("redis-lock:{owned}");
			assertThat(expired.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(expired::close)
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("owned"));
			assertThat(this.primary.get("redis-lock:{owned}")).isNotNull().isEqualTo(owner);
			assertThat(current.isHeld()).isTrue();
		}
	}

	/**
	 * A waiter on another node gets the lock within moments of its release, long before
	 * the holder's 30 s lease would end: the release message woke it.
	 */
	@Test
	void waiterIsWokenByTheReleaseMessage() throws Exception {
		LockTemplate holderNode = node();
		LockTemplate waiterNode = node();
		LockHandle held = holderNode.lock("awaited");
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
				() -> waiterNode.lock(LockRequest.of("awaited").waitTime(Duration.ofSeconds(20))), this.executor);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.locks.diagnostics(waiterNode).waiterCount() == 1
					&& this.locks.diagnostics(waiterNode).subscribedChannelCount() == 1);
		long released = System.nanoTime();
		held.close();
		try (LockHandle granted = waiter.get(10, TimeUnit.SECONDS)) {
			assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(MARGIN);
			assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
		}
	}

	/**
	 * A fixed lease runs out on the primary, and a waiter gets the lock then, not before.
	 */
	@Test
	void fixedLeaseRunsOutAndTheLockPassesOn() {
		Duration lease = Duration.ofMillis(800);
		LockTemplate node = node();
		LockTemplate waiterNode = node();
		// The lease starts when Redis runs the acquire, after it was asked for.
		long asked = System.nanoTime();
		LockHandle expiring = node.lock(LockRequest.of("leased").leaseTime(lease));
		try (LockHandle next = waiterNode.lock(LockRequest.of("leased").waitTime(Duration.ofSeconds(10)))) {
			Duration waited = Duration.ofNanos(System.nanoTime() - asked);
			// Less a few milliseconds for Redis' clock
			assertThat(waited).isGreaterThanOrEqualTo(lease.minusMillis(10)).isLessThan(lease.plus(MARGIN));
			assertThat(expiring.isHeld()).isFalse();
			assertThat(next.fencingToken()).isGreaterThan(expiring.fencingToken());
		}
	}

	/**
	 * The watchdog keeps a lock past its lease while its holder runs. A renewal may come
	 * 2 s late (as late as the command timeout allows) before the lease runs out.
	 */
	@Test
	void watchdogRenewsTheLockWhileHeld() {
		Duration lease = Duration.ofMillis(2500);
		Duration renewInterval = Duration.ofMillis(500);
		LockTemplate node = node(LockOptions.defaults().withWatchdog(lease, renewInterval));
		LockTemplate other = node();
		try (LockHandle handle = node.lock("renewed")) {
			String owner = this.primary.get("redis-lock:{renewed}");
			// Held by its owner at every check, until two renewals past the first lease:
			// a
			// lock that lapsed once cannot come back with the same owner token.
			Duration past = lease.plus(renewInterval.multipliedBy(2));
			await().during(past)
				.atMost(past.plus(MARGIN))
				.until(() -> handle.isHeld() && owner.equals(this.primary.get("redis-lock:{renewed}")));
			assertThat(this.primary.pttl("redis-lock:{renewed}")).isPositive();
			assertThat(this.observer.renewals("renewed")).isGreaterThanOrEqualTo(5);
			assertThat(other.tryLock("renewed", Duration.ZERO)).isEmpty();
		}
		assertThat(this.locks.diagnostics(node).renewedCount()).isZero();
		assertThat(this.primary.get("redis-lock:{renewed}")).isNull();
	}

	/**
	 * A lock that vanished from the primary is reported lost at the next renewal, within
	 * a renewal interval and a margin, far sooner than its 10 s lease would run out in
	 * this JVM.
	 */
	@Test
	void holderLearnsThatItsLockVanished() {
		Duration renewInterval = Duration.ofMillis(300);
		LockTemplate node = node(LockOptions.defaults().withWatchdog(Duration.ofSeconds(10), renewInterval));
		LockHandle handle = node.lock("vanished");
		this.primary.command("DEL", "redis-lock:{vanished}");
		// The observer hears of the loss just after the handle shows it.
		await().atMost(renewInterval.plus(MARGIN)).until(() -> this.observer.losses("vanished") == 1);
		assertThat(handle.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(handle.fencingToken()));
	}

	/** Every grant of a key, on either node, carries a greater fencing token. */
	@Test
	void fencingTokensIncreaseAcrossNodes() {
		List<LockTemplate> nodes = List.of(node(), node());
		long last = 0;
		for (int i = 0; i < 10; i++) {
			try (LockHandle handle = nodes.get(i % 2).lock("fenced")) {
				assertThat(handle.fencingToken()).isGreaterThan(last);
				last = handle.fencingToken();
			}
		}
	}

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
			LockFixture.warmUp(holder);
			LockHandle handle = holder.lock("survivor");
			RedisServer replica = failing.replica();
			String owner;
			try (RedisCli cli = failing.primary().cli()) {
				owner = cli.get("redis-lock:{survivor}");
			}
			awaitReplicated(replica, "redis-lock:{survivor}", owner);
			failing.primary().kill();
			int renewalsBeforeFailover = this.observer.renewals("survivor");
			assertThat(failing.awaitFailover(FAILOVER_TIMEOUT)).isEqualTo(replica);
			try (RedisCli cli = replica.cli()) {
				// Renewals that reached the new primary: the old one is dead.
				await().atMost(Duration.ofSeconds(10))
					.until(() -> this.observer.renewals("survivor") >= renewalsBeforeFailover + 2);
				assertThat(cli.get("redis-lock:{survivor}")).isEqualTo(owner);
				assertThat(cli.pttl("redis-lock:{survivor}")).isGreaterThan(lease.minusSeconds(2).toMillis());
				assertThat(handle.isHeld()).isTrue();
				assertThat(this.observer.losses("survivor")).isZero();
				assertThat(other.tryLock("survivor", Duration.ZERO)).isEmpty();
				try (LockHandle fresh = other.lock(LockRequest.of("fresh").waitTime(Duration.ofSeconds(5)))) {
					assertThat(cli.get("redis-lock:{fresh}")).isNotNull();
				}
				handle.close();
				assertThat(cli.get("redis-lock:{survivor}")).isNull();
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
			LockFixture.warmUp(holder);
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
					assertThat(cli.get("redis-lock:{unreplicated}")).isNotNull();
				}
			}
		}
	}

	private static void awaitReplicated(RedisServer replica, String key, String value) {
		try (RedisCli cli = replica.cli()) {
			await().atMost(Duration.ofSeconds(5)).until(() -> value.equals(cli.get(key)));
		}
	}

	private LockTemplate node() {
		return node(LockOptions.defaults());
	}

	/**
	 * A node connected through the sentinels, warmed up so that its first lock is timed
	 * like any other.
	 */
	private LockTemplate node(LockOptions options) {
		LockTemplate node = this.locks.template(options, this.observer);
		LockFixture.warmUp(node);
		return node;
	}

}
