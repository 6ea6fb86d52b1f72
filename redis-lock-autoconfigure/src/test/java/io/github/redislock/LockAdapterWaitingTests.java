package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Interrupts of {@link LockOperations#asLock}'s {@link Lock}, held to its Javadoc:
 * {@code lockInterruptibly()} ends with {@link InterruptedException} and holds nothing;
 * {@code lock()} keeps waiting through an interrupt and returns with it set. A waiter is
 * known to be asleep, or to have been interrupted, through the engine's diagnostics and
 * observer.
 */
class LockAdapterWaitingTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration MARGIN = Duration.ofSeconds(5);

	private final InterruptCounter interrupts = new InterruptCounter();

	private StandaloneLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template(LockOptions.defaults(), this.interrupts);
		this.otherNode = this.locks.template();
		this.executor = LockFixture.executor("juc-lock-waiting");
	}

	@AfterEach
	void tearDown() throws Exception {
		Thread.interrupted();
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void lockInterruptiblyInterruptedWhileWaitingThrowsAndHoldsNothing() throws Exception {
		Lock lock = this.template.asLock("order:1");
		try (LockHandle held = this.otherNode.lock("order:1")) {
			CompletableFuture<String> ended = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				try {
					lock.lockInterruptibly();
					ended.complete("locked");
				}
				catch (InterruptedException ex) {
					ended.complete("interrupted, flag " + Thread.currentThread().isInterrupted());
				}
			});
			waiter.start();
			awaitSleepingWaiter();
			waiter.interrupt();
			assertThat(ended.get(MARGIN.toSeconds(), TimeUnit.SECONDS)).isEqualTo("interrupted, flag false");
			waiter.join(MARGIN.toMillis());
		}
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
		assertThat(this.locks.diagnostics(this.template).waiterCount()).isZero();
		assertThat(this.otherNode.tryLock("order:1", Duration.ZERO)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void lockInterruptiblyOfAnInterruptedThreadThrowsAtOnce() {
		Lock lock = this.template.asLock("order:1");
		Thread.currentThread().interrupt();
		try {
			lock.lockInterruptibly();
			lock.unlock();
			throw new AssertionError("lockInterruptibly() ignored the interrupt");
		}
		catch (InterruptedException ex) {
			assertThat(Thread.currentThread().isInterrupted()).isFalse();
		}
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void lockOfAnInterruptedThreadLocksAndKeepsTheInterrupt() {
		Lock lock = this.template.asLock("order:1");
		Thread.currentThread().interrupt();
		try {
			lock.lock();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.locks.diagnostics(this.template).heldCount()).isOne();
		lock.unlock();
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void lockInterruptedWhileWaitingKeepsWaitingAndReturnsWithTheInterruptSet() throws Exception {
		Lock lock = this.template.asLock("order:1");
		LockHandle held = this.otherNode.lock("order:1");
		CompletableFuture<String> ended = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			lock.lock();
			ended.complete("locked, interrupted " + Thread.currentThread().isInterrupted());
			lock.unlock();
		});
		waiter.start();
		awaitSleepingWaiter();
		waiter.interrupt();
		await().atMost(MARGIN).until(() -> this.interrupts.count.get() == 1);
		awaitSleepingWaiter();
		assertThat(ended).isNotDone();
		held.close();
		assertThat(ended.get(MARGIN.toSeconds(), TimeUnit.SECONDS)).isEqualTo("locked, interrupted true");
		waiter.join(MARGIN.toMillis());
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	private void awaitSleepingWaiter() {
		await().atMost(MARGIN).until(() -> this.locks.diagnostics(this.template).sleepingWaiterCount() == 1);
	}

	/** Counts the acquisitions that an interrupt ended. */
	private static final class InterruptCounter implements LockObserver {

		private final AtomicInteger count = new AtomicInteger();

		@Override
		public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
				@Nullable Throwable failure) {
			if (outcome == AcquireOutcome.INTERRUPTED) {
				this.count.incrementAndGet();
			}
		}

	}

}
