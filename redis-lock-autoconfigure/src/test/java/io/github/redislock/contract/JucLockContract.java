package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.Test;

import io.github.redislock.FencedLock;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link Lock} of {@code LockOperations.asLock}, held to the {@code Lock} Javadoc
 * where Redis is involved: threads of several {@code Lock}s and nodes never overlap, the
 * last {@code unlock()} of a reentrant hold releases it, {@code tryLock()} fails at once
 * while another node holds the lock, and a timed {@code tryLock} gets a lock released
 * within its wait and gives up after it. Ownership, interrupts, conditions and losses,
 * which Redis does not change, are tested on one server by the root package's
 * {@code LockAdapter*Tests}.
 */
interface JucLockContract extends LockContract {

	@Test
	default void threadsOfSeveralLocksOfOneNameNeverOverlap() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		List<FencedLock> adapters = List.of(node.asLock("counter"), node.asLock("counter"),
				otherNode.asLock("counter"));
		int[] counter = new int[1];
		CriticalSections sections = new CriticalSections();
		int threadsPerLock = 2;
		int increments = 40;
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (FencedLock lock : adapters) {
			for (int i = 0; i < threadsPerLock; i++) {
				workers.add(CompletableFuture.runAsync(() -> {
					for (int n = 0; n < increments; n++) {
						lock.lock();
						try {
							CriticalSections.Section section = sections.enter("counter", lock, lock.fencingToken());
							// A read and a write apart, so that any overlap loses an
							// increment.
							int read = counter[0];
							Thread.yield();
							counter[0] = read + 1;
							sections.exit(section);
						}
						finally {
							lock.unlock();
						}
					}
				}, executor()));
			}
		}
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(sections.maxInside("counter")).isOne();
		assertThat(sections.overlaps(true)).isEmpty();
		assertThat(counter[0]).isEqualTo(adapters.size() * threadsPerLock * increments);
		assertThat(locks().diagnostics(node).heldCount()).isZero();
		assertThat(locks().diagnostics(otherNode).heldCount()).isZero();
	}

	@Test
	default void reentrantLockIsReleasedByTheLastUnlock() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		for (String name : locks().names("order", 1)) {
			Lock lock = node.asLock(name);
			lock.lock();
			assertThat(lock.tryLock()).isTrue();
			lock.lock();
			lock.unlock();
			lock.unlock();
			assertThat(otherNode.asLock(name).tryLock()).isFalse();
			assertThat(CompletableFuture.supplyAsync(lock::tryLock, executor()).get(5, TimeUnit.SECONDS)).isFalse();
			lock.unlock();
			assertThat(locks().diagnostics(node).heldCount()).isZero();
			assertThat(otherNode.tryLock(name, Duration.ZERO)).hasValueSatisfying(LockHandle::close);
		}
	}

	@Test
	default void tryLockFailsAtOnceWhileAnotherNodeHoldsIt() {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		for (String name : locks().names("order", 1)) {
			Lock lock = node.asLock(name);
			LockFixture.warmUp(node);
			try (LockHandle held = otherNode.lock(name)) {
				long startedAt = System.nanoTime();
				assertThat(lock.tryLock()).isFalse();
				assertThat(Duration.ofNanos(System.nanoTime() - startedAt)).isLessThan(Duration.ofSeconds(3));
			}
			assertThat(lock.tryLock()).isTrue();
			assertThat(otherNode.asLock(name).tryLock()).isFalse();
			lock.unlock();
		}
	}

	@Test
	default void timedTryLockGetsALockReleasedWithinTheWait() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		Lock lock = node.asLock("order:1");
		LockHandle held = otherNode.lock("order:1");
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				boolean locked = lock.tryLock(30, TimeUnit.SECONDS);
				lock.unlock();
				return locked;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, executor());
		await().atMost(Duration.ofSeconds(10)).until(() -> locks().diagnostics(node).sleepingWaiterCount() == 1);
		held.close();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	default void timedTryLockGivesUpAfterTheWait() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		Lock lock = node.asLock("order:1");
		Duration wait = Duration.ofMillis(300);
		try (LockHandle held = otherNode.lock("order:1")) {
			long startedAt = System.nanoTime();
			// On a thread of its own, so that a wait that never ends fails the test
			// instead of hanging it.
			Future<Boolean> attempt = executor().submit(() -> lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS));
			assertThat(attempt.get(wait.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS)).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - startedAt)).isBetween(wait, wait.plus(SLACK));
			assertThat(lock.tryLock(-1, TimeUnit.SECONDS)).isFalse();
		}
		assertThat(locks().diagnostics(node).heldCount()).isZero();
		assertThat(locks().diagnostics(node).waiterCount()).isZero();
	}

	@Test
	default void readLocksAreSharedAndExcludeTheWriteLock() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		Lock reader = node.asLock(LockRequest.read("doc"));
		Lock writer = otherNode.asLock(LockRequest.write("doc"));
		reader.lock();
		assertThat(CompletableFuture.supplyAsync(() -> {
			boolean shared = reader.tryLock();
			reader.unlock();
			return shared;
		}, executor()).get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(CompletableFuture.supplyAsync(writer::tryLock, executor()).get(5, TimeUnit.SECONDS)).isFalse();
		reader.unlock();
		assertThat(writer.tryLock()).isTrue();
		writer.unlock();
	}

}
