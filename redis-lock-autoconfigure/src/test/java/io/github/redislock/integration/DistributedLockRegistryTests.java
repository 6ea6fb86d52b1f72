package io.github.redislock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.FencedLock;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistributedLockRegistry} as Spring Integration uses a {@code LockRegistry}: one
 * {@code Lock} per key, excluding another JVM's, and the interface's own
 * {@code executeLocked} methods on top of it.
 */
class DistributedLockRegistryTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private StandaloneLocks locks;

	private LockTemplate template;

	private DistributedLockRegistry registry;

	/** Another JVM, as far as Redis can tell: an engine and connections of its own. */
	private LockTemplate otherNode;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template();
		this.registry = new DistributedLockRegistry(this.template);
		this.otherNode = this.locks.template();
		this.executor = LockFixture.executor("lock-registry");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void obtainReturnsOneLockPerKeyNamedByItsStringForm() {
		FencedLock lock = this.registry.obtain(42);
		assertThat(this.registry.obtain("42")).isSameAs(lock);
		assertThat(this.registry.obtain(43)).isNotSameAs(lock);
		lock.lock();
		try {
			assertThat(this.otherNode.tryLock("42", Duration.ZERO)).isEmpty();
			assertThat(this.otherNode.tryLock("43", Duration.ZERO)).isPresent().get().satisfies(LockHandle::close);
		}
		finally {
			// Unlocked through another obtain() of the same key, as callers may
			this.registry.obtain("42").unlock();
		}
		assertThat(this.otherNode.tryLock("42", Duration.ZERO)).isPresent().get().satisfies(LockHandle::close);
	}

	@Test
	void executeLockedRunsTheTaskUnderTheLockAndReleasesIt() throws Exception {
		AtomicBoolean excluded = new AtomicBoolean();
		this.registry.executeLocked("report",
				() -> excluded.set(this.otherNode.tryLock("report", Duration.ZERO).map((handle) -> {
					handle.close();
					return false;
				}).orElse(true)));
		assertThat(excluded).isTrue();
		String result = this.registry.executeLocked("report", () -> "token " + this.registry.fencingToken("report"));
		assertThat(result).startsWith("token ");
		assertThat(this.otherNode.tryLock("report", Duration.ZERO)).isPresent().get().satisfies(LockHandle::close);
	}

	@Test
	void executeLockedWithAWaitTimesOutWhileAnotherJvmHoldsTheLock() throws Exception {
		try (LockHandle held = this.otherNode.lock("report")) {
			assertThatExceptionOfType(TimeoutException.class)
				.isThrownBy(() -> this.registry.executeLocked("report", Duration.ofMillis(200), () -> "never"));
		}
		assertThat(this.registry.executeLocked("report", Duration.ofSeconds(5), () -> "done")).isEqualTo("done");
	}

	@Test
	void executeLockedWithAWaitRunsATaskOnceTheOtherJvmReleases() throws Exception {
		LockHandle held = this.otherNode.lock("report");
		AtomicBoolean ran = new AtomicBoolean();
		CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
			try {
				this.registry.executeLocked("report", Duration.ofSeconds(10), () -> ran.set(true));
			}
			catch (InterruptedException | TimeoutException ex) {
				throw new IllegalStateException(ex);
			}
		}, this.executor);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.diagnostics(this.template).waiterCount() == 1);
		assertThat(ran).isFalse();
		held.close();
		waiting.get(10, TimeUnit.SECONDS);
		assertThat(ran).isTrue();
	}

	@Test
	void executeLockedOfAnInterruptedThreadThrowsInterruptedExceptionAndHoldsNothing() {
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(InterruptedException.class)
				.isThrownBy(() -> this.registry.executeLocked("report", () -> "never"));
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.otherNode.tryLock("report", Duration.ZERO)).isPresent().get().satisfies(LockHandle::close);
	}

	@Test
	void executeLockedReleasesTheLockWhenTheTaskThrows() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.registry.executeLocked("report", () -> {
				throw new IllegalStateException("failed");
			}));
		assertThat(this.otherNode.tryLock("report", Duration.ZERO)).isPresent().get().satisfies(LockHandle::close);
	}

	@Test
	void fencingTokenIsTheCallingThreadsTokenAndGrowsWithEachGrant() throws Exception {
		FencedLock lock = this.registry.obtain("report");
		lock.lock();
		long first = this.registry.fencingToken("report");
		assertThat(CompletableFuture.supplyAsync(() -> {
			try {
				return this.registry.fencingToken("report");
			}
			catch (IllegalMonitorStateException ex) {
				return -1L;
			}
		}, this.executor).get(5, TimeUnit.SECONDS)).isEqualTo(-1L);
		lock.unlock();
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> this.registry.fencingToken("report"))
			.withMessageContaining("Lock 'report' is not held by thread");
		try (LockHandle other = this.otherNode.lock("report")) {
			assertThat(other.fencingToken()).isGreaterThan(first);
		}
		assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.fencingToken()).isGreaterThan(first);
		lock.unlock();
	}

	@Test
	void requestFactoryShapesEachLock() throws Exception {
		DistributedLockRegistry fixedLeases = new DistributedLockRegistry(this.locks.template(),
				(key) -> LockRequest.of(key).leaseTime(Duration.ofMillis(300)), 10);
		FencedLock lock = fixedLeases.obtain("short");
		lock.lock();
		// The fixed lease runs out while held, and another JVM gets the lock
		assertThat(this.otherNode.tryLock("short", Duration.ofSeconds(5))).isPresent()
			.get()
			.satisfies(LockHandle::close);
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
	}

	@Test
	void forgetsTheLeastRecentlyObtainedLocksBeyondItsCapacity() {
		DistributedLockRegistry small = new DistributedLockRegistry(this.locks.template(), LockRequest::of, 2);
		FencedLock a = small.obtain("a");
		FencedLock b = small.obtain("b");
		assertThat(small.obtain("a")).isSameAs(a);
		// "b" is now the least recently obtained
		small.obtain("c");
		assertThat(small.obtain("a")).isSameAs(a);
		assertThat(small.obtain("b")).isNotSameAs(b);
	}

	@Test
	void keepsTheLockJustObtainedWhenTheOthersAreHeld() {
		DistributedLockRegistry small = new DistributedLockRegistry(this.locks.template(), LockRequest::of, 1);
		FencedLock a = small.obtain("a");
		a.lock();
		try {
			FencedLock b = small.obtain("b");
			assertThat(small.obtain("b")).isSameAs(b);
			assertThat(small.obtain("a")).isSameAs(a);
		}
		finally {
			a.unlock();
		}
	}

	@Test
	void twoRegistriesOnOneTemplateShareTheThreadsReentrancy() {
		DistributedLockRegistry second = new DistributedLockRegistry(this.template);
		FencedLock first = this.registry.obtain("report");
		first.lock();
		try {
			// The engine's reentrancy: the same thread re-enters through the other
			// registry, and each registry keeps its own hold
			assertThat(second.obtain("report").tryLock()).isTrue();
			assertThat(second.fencingToken("report")).isEqualTo(first.fencingToken());
			second.obtain("report").unlock();
			assertThat(this.otherNode.isLocked("report")).isTrue();
		}
		finally {
			first.unlock();
		}
		assertThat(this.otherNode.isLocked("report")).isFalse();
	}

	@Test
	void refusesAKeyThatBreaksTheRulesForLockNames() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.obtain(" "));
	}

	@Test
	void refusesANonPositiveCapacity() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DistributedLockRegistry(this.otherNode, LockRequest::of, 0))
			.withMessageContaining("capacity must be at least 1");
	}

	@Test
	void renewLockWithATimeSetsTheLeaseFromNowAndKeepsTheFencingToken() {
		DistributedLockRegistry fixedLease = new DistributedLockRegistry(this.template,
				(key) -> LockRequest.of(key).leaseTime(Duration.ofSeconds(5)), 100);
		RedisCli cli = this.locks.cli("report");
		FencedLock lock = fixedLease.obtain("report");
		lock.lock();
		try {
			long token = lock.fencingToken();
			assertThat(cli.pttl(LockFixture.lockKey("report"))).isBetween(1L, 5_000L);
			fixedLease.renewLock("report", Duration.ofMinutes(1));
			assertThat(cli.pttl(LockFixture.lockKey("report"))).isGreaterThan(30_000L);
			assertThat(lock.fencingToken()).isEqualTo(token);
			// Without a time: the request's own fixed lease again.
			fixedLease.renewLock("report");
			assertThat(cli.pttl(LockFixture.lockKey("report"))).isBetween(1L, 5_000L);
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void renewLockOfALockTheThreadDoesNotHoldThrowsIllegalState() throws Exception {
		FencedLock lock = this.registry.obtain("report");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.registry.renewLock("report", Duration.ofSeconds(10)))
			.withMessageContaining("report");
		lock.lock();
		try {
			CompletableFuture<Void> otherThread = CompletableFuture
				.runAsync(() -> this.registry.renewLock("report", Duration.ofSeconds(10)), this.executor);
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> otherThread.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(IllegalStateException.class);
			// A lock the watchdog renews is only checked.
			this.registry.renewLock("report");
		}
		finally {
			lock.unlock();
		}
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.registry.renewLock("report"));
	}

	@Test
	void renewLockOfALostLockThrowsIllegalStateCausedByTheLoss() {
		RedisCli cli = this.locks.cli("report");
		FencedLock lock = this.registry.obtain("report");
		lock.lock();
		cli.command("DEL", LockFixture.lockKey("report"));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.registry.renewLock("report", Duration.ofSeconds(10)))
			.withCauseInstanceOf(LockLostException.class)
			.withMessageContaining("lost");
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock::unlock);
	}

}
