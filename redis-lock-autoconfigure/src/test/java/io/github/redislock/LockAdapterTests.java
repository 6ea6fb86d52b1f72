package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LockOperations#asLock} held to the {@link Lock} Javadoc where one Redis server
 * shows it all: unlock by the owner only, {@code tryLock()} without waiting and without
 * heeding interrupts, no {@code Condition}, and what it refuses. Interrupts while waiting
 * are in {@link LockAdapterWaitingTests}, a lock lost while held in
 * {@link LockAdapterLossTests}; exclusion, reentrancy and timed waits, which every
 * topology runs, in the contract's {@code JucLockContract}.
 */
class LockAdapterTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private StandaloneLocks locks;

	private LockTemplate template;

	/** Another JVM, as far as Redis can tell: an engine and connections of its own. */
	private LockTemplate otherNode;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template();
		this.otherNode = this.locks.template();
		this.executor = LockFixture.executor("juc-lock");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void unlockByAThreadThatDoesNotHoldItThrowsAndLeavesItHeld() throws Exception {
		Lock lock = this.template.asLock("order:1");
		lock.lock();
		CompletableFuture<Void> other = CompletableFuture.runAsync(lock::unlock, this.executor);
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> other.get(5, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(IllegalMonitorStateException.class)
			.withMessageContaining("Lock 'order:1' is not held by thread");
		assertThat(this.otherNode.tryLock("order:1", Duration.ZERO)).isEmpty();
		lock.unlock();
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void unlockWithoutLockThrowsIllegalMonitorState() {
		Lock lock = this.template.asLock("order:1");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		lock.lock();
		lock.unlock();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
	}

	@Test
	void unlockThroughAnotherLockOfTheSameNameThrowsIllegalMonitorState() {
		Lock lock = this.template.asLock("order:1");
		lock.lock();
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> this.template.asLock("order:1").unlock());
		lock.unlock();
	}

	@Test
	void tryLockFailsAtOnceWhileAnotherThreadHoldsIt() throws Exception {
		Lock lock = this.template.asLock("order:1");
		lock.lock();
		long startedAt = System.nanoTime();
		assertThat(CompletableFuture.supplyAsync(lock::tryLock, this.executor).get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(CompletableFuture.supplyAsync(() -> this.template.asLock("order:1").tryLock(), this.executor)
			.get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - startedAt)).isLessThan(Duration.ofSeconds(3));
		lock.unlock();
		assertThat(CompletableFuture.supplyAsync(() -> {
			boolean locked = lock.tryLock();
			lock.unlock();
			return locked;
		}, this.executor).get(5, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void tryLockIsNotInterruptibleAndKeepsTheInterrupt() {
		Lock lock = this.template.asLock("order:1");
		Thread.currentThread().interrupt();
		try {
			assertThat(lock.tryLock()).isTrue();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		lock.unlock();
	}

	@Test
	void newConditionIsUnsupportedAndSaysWhy() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.template.asLock("order:1").newCondition())
			.withMessageContaining("cannot offer a Condition");
	}

	@Test
	void toStringNamesTheKeyAndWhetherTheThreadHoldsIt() {
		Lock lock = this.template.asLock("order:1");
		assertThat(lock).hasToString("Lock[key=order:1, heldByCurrentThread=false]");
		lock.lock();
		assertThat(lock).hasToString("Lock[key=order:1, heldByCurrentThread=true]");
		lock.unlock();
	}

	@Test
	void lockOfANonReentrantRequestIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.template.asLock(LockRequest.of("order:1").reentrant(false)))
			.withMessageContaining("must be reentrant");
	}

}
