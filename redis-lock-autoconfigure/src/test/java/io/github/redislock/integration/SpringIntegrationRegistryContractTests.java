package io.github.redislock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * What code written against Spring Integration's lock registries may expect of
 * {@link DistributedLockRegistry}, one test per behaviour, as Spring Integration's own
 * {@code RedisLockRegistry} and {@code JdbcLockRegistry} behave. The registry is used
 * through Spring Integration's types ({@link RenewableLockRegistry},
 * {@link DistributedLock}) as an application that injects a {@code LockRegistry} would;
 * "another registry" is one on an engine and connections of its own, as another JVM's.
 */
class SpringIntegrationRegistryContractTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	/**
	 * A lease that a renewal every third of it keeps, also on a loaded machine: the
	 * renewals have 600 ms to come, where a 300 ms lease left 200 ms, which a CI machine
	 * running other JVMs' tests alongside sometimes stalled for.
	 */
	private static final Duration RENEWED_LEASE = Duration.ofMillis(900);

	/** A watchdog that finds a loss within a few tenths of a second. */
	private static final LockOptions QUICK_WATCHDOG = LockOptions.defaults()
		.withWatchdog(Duration.ofMillis(1500), Duration.ofMillis(300));

	private final CountingObserver observer = new CountingObserver();

	private StandaloneLocks locks;

	private RedisCli cli;

	/** This node's template, warmed up: connected and its scripts loaded. */
	private LockTemplate template;

	private RenewableLockRegistry<?> registry;

	private RenewableLockRegistry<?> otherRegistry;

	private LockTemplate otherNode;

	private ThreadPoolTaskScheduler scheduler;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.cli = this.locks.cli();
		this.template = this.locks.template(QUICK_WATCHDOG, this.observer);
		LockFixture.warmUp(this.template);
		this.registry = new DistributedLockRegistry(this.template);
		this.otherNode = this.locks.template();
		this.otherRegistry = new DistributedLockRegistry(this.otherNode);
		this.scheduler = new ThreadPoolTaskScheduler();
		this.scheduler.setThreadNamePrefix("lock-renewal-");
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.scheduler.initialize();
		this.executor = LockFixture.executor("si-contract");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.scheduler.shutdown();
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void obtainReturnsOneLockPerKeyThatExcludesAnotherRegistry() throws Exception {
		Lock lock = this.registry.obtain("job");
		assertThat(this.registry.obtain("job")).isSameAs(lock);
		lock.lock();
		try {
			assertThat(this.otherRegistry.obtain("job").tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
		}
		finally {
			lock.unlock();
		}
		Lock other = this.otherRegistry.obtain("job");
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	void locksAreReentrantAndReleasedByTheLastUnlock() {
		Lock lock = this.registry.obtain("job");
		lock.lock();
		lock.lock();
		lock.unlock();
		assertThat(this.otherNode.isLocked("job")).isTrue();
		lock.unlock();
		assertThat(this.otherNode.isLocked("job")).isFalse();
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockThrowsIllegalMonitorState() throws Exception {
		Lock lock = this.registry.obtain("job");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		lock.lock();
		try {
			CompletableFuture<Void> otherThread = CompletableFuture.runAsync(lock::unlock, this.executor);
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> otherThread.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(IllegalMonitorStateException.class);
			assertThat(this.otherNode.isLocked("job")).isTrue();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void unlockOfALockLostWhileHeldThrowsConcurrentModificationAndLeavesTheNewOwnersLock() throws Exception {
		Lock lock = this.registry.obtain("job");
		lock.lock();
		this.cli.command("DEL", LockFixture.lockKey("job"));
		try (LockHandle newOwner = this.otherNode.tryLock("job", Duration.ofSeconds(5)).orElseThrow()) {
			String newOwnersValue = this.cli.get(LockFixture.lockKey("job"));
			assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock)
				.withMessageContaining("'job'")
				.withMessageContaining("lost");
			// Released here: the thread holds nothing, and the new owner's lock is
			// as it was
			assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
			assertThat(this.cli.get(LockFixture.lockKey("job"))).isEqualTo(newOwnersValue);
			assertThat(newOwner.isHeld()).isTrue();
		}
		assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
	}

	@Test
	void eachUnlockOfAHoldTheWatchdogFoundLostThrowsConcurrentModification() {
		Lock lock = this.registry.obtain("job");
		lock.lock();
		lock.lock();
		this.cli.command("DEL", LockFixture.lockKey("job"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.observer.losses("job") == 1);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
	}

	@Test
	void obtainedLocksAreSpringIntegrationDistributedLocksWhoseTtlIsAFixedLease() throws Exception {
		assertThat(this.registry.obtain("job")).isInstanceOf(DistributedLock.class);
		DistributedLock lock = (DistributedLock) this.registry.obtain("job");
		lock.lock(Duration.ofSeconds(20));
		try {
			assertThat(this.cli.pttl(LockFixture.lockKey("job"))).isBetween(10_000L, 20_000L);
			DistributedLock other = (DistributedLock) this.otherRegistry.obtain("job");
			assertThat(other.tryLock(Duration.ofMillis(200), Duration.ofSeconds(20))).isFalse();
		}
		finally {
			lock.unlock();
		}
		assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofMillis(300))).isTrue();
		// Not renewed: the lease runs out while held, and another registry gets the lock
		DistributedLock other = (DistributedLock) this.otherRegistry.obtain("job");
		assertThat(other.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(20))).isTrue();
		other.unlock();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
	}

	@Test
	void renewLockWithoutATtlRenewsAFixedLeaseHoldByItsOwnTtl() {
		DistributedLock lock = (DistributedLock) this.registry.obtain("job");
		lock.lock(Duration.ofSeconds(5));
		try {
			this.registry.renewLock("job", Duration.ofMinutes(1));
			assertThat(this.cli.pttl(LockFixture.lockKey("job"))).isGreaterThan(30_000L);
			this.registry.renewLock("job");
			assertThat(this.cli.pttl(LockFixture.lockKey("job"))).isBetween(1L, 5_000L);
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void renewalTaskSchedulerKeepsAFixedLeaseHeldWhileHeld() throws Exception {
		this.registry.setRenewalTaskScheduler(this.scheduler);
		DistributedLock lock = (DistributedLock) this.registry.obtain("job");
		lock.lock(RENEWED_LEASE);
		try {
			// Three leases long, and never free for another registry
			assertThat(this.otherRegistry.obtain("job").tryLock(RENEWED_LEASE.toMillis() * 3, TimeUnit.MILLISECONDS))
				.isFalse();
		}
		finally {
			lock.unlock();
		}
		// Renewals end with the hold
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.scheduler.getScheduledThreadPoolExecutor().getQueue().isEmpty());
		Lock other = this.otherRegistry.obtain("job");
		assertThat(other.tryLock()).isTrue();
		other.unlock();
	}

	@Test
	void renewalTaskSchedulerKeepsTheRequestFactorysFixedLeasesHeldWhileHeld() throws Exception {
		// On a node warmed up, whose first renewal cannot take as long as a cold start
		RenewableLockRegistry<?> fixedLeases = new DistributedLockRegistry(this.template,
				(key) -> LockRequest.of(key).leaseTime(RENEWED_LEASE), 100);
		fixedLeases.setRenewalTaskScheduler(this.scheduler);
		Lock lock = fixedLeases.obtain("job");
		lock.lock();
		try {
			assertThat(this.otherRegistry.obtain("job").tryLock(RENEWED_LEASE.toMillis() * 3, TimeUnit.MILLISECONDS))
				.isFalse();
		}
		finally {
			lock.unlock();
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.scheduler.getScheduledThreadPoolExecutor().getQueue().isEmpty());
	}

	@Test
	void withoutARenewalTaskSchedulerAFixedLeaseRunsOutWhileHeld() throws Exception {
		RenewableLockRegistry<?> fixedLeases = new DistributedLockRegistry(this.locks.template(),
				(key) -> LockRequest.of(key).leaseTime(Duration.ofMillis(300)), 100);
		Lock lock = fixedLeases.obtain("job");
		lock.lock();
		Lock other = this.otherRegistry.obtain("job");
		assertThat(other.tryLock(5, TimeUnit.SECONDS)).isTrue();
		other.unlock();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
	}

	@Test
	void renewLockOfAWatchdogLockFoundLostThrowsIllegalState() {
		Lock lock = this.registry.obtain("leader");
		lock.lock();
		try {
			this.registry.renewLock("leader");
			this.cli.command("DEL", LockFixture.lockKey("leader"));
			await().atMost(Duration.ofSeconds(5)).until(() -> this.observer.losses("leader") == 1);
			assertThatIllegalStateException().isThrownBy(() -> this.registry.renewLock("leader"))
				.withMessageContaining("'leader'")
				.withMessageContaining("lost");
		}
		finally {
			assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
		}
	}

	@Test
	void aHeldLockIsNeverForgottenBeyondTheCapacity() {
		DistributedLockRegistry small = new DistributedLockRegistry(this.locks.template(), LockRequest::of, 1);
		Lock a = small.obtain("a");
		a.lock();
		try {
			small.obtain("b");
			small.obtain("c");
			assertThat(small.obtain("a")).isSameAs(a);
			assertThat(small.fencingToken("a")).isPositive();
			small.renewLock("a");
			small.renewLock("a", Duration.ofSeconds(30));
		}
		finally {
			small.obtain("a").unlock();
		}
		assertThat(this.otherNode.isLocked("a")).isFalse();
		// Unheld, it is forgotten as any other
		small.obtain("b");
		assertThat(small.obtain("a")).isNotSameAs(a);
	}

}
