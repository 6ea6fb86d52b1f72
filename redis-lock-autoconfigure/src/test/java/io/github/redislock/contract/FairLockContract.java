package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Fair locks: waiters of every node get the lock in the order they queued in Redis, and a
 * waiter that times out or gives up leaves the queue without holding up the ones behind
 * it. Waiters of several JVMs are shown in {@code FairLockTests}.
 */
interface FairLockContract extends LockContract {

	/** The name of the fair lock of these tests. */
	String TICKET = "ticket";

	/** The queue of the fair lock {@value #TICKET}, with the default prefix. */
	String QUEUE = "redis-lock:{ticket}:queue";

	/** A wait far longer than any test should take. */
	Duration TIMEOUT = Duration.ofSeconds(30);

	@Test
	default void waitersGetTheLockInTheOrderTheyQueued() throws Exception {
		LockTemplate holderNode = locks().template();
		List<LockTemplate> waiterNodes = List.of(locks().template(), locks().template());
		RedisCli cli = locks().cli(TICKET);
		int waiters = 6;
		List<String> grants = new CopyOnWriteArrayList<>();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		List<Future<?>> results = new ArrayList<>();
		List<String> asked = new ArrayList<>();
		try (LockHandle holder = holderNode.lock(fair())) {
			tokens.add(holder.fencingToken());
			for (int i = 0; i < waiters; i++) {
				String label = "waiter-" + i;
				LockTemplate node = waiterNodes.get(i % 2);
				results.add(executor().submit(() -> {
					try (LockHandle handle = node.lock(fair().waitTime(TIMEOUT))) {
						grants.add(label);
						tokens.add(handle.fencingToken());
					}
					return null;
				}));
				asked.add(label);
				// Start the next waiter only once this one is in the queue.
				awaitQueueLength(cli, i + 1);
			}
		}
		for (Future<?> result : results) {
			result.get(30, TimeUnit.SECONDS);
		}
		assertThat(grants).containsExactlyElementsOf(asked);
		assertThat(tokens).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
		assertThat(queueLength(cli)).isZero();
	}

	@Test
	default void fairLockIsReentrantForItsThread() throws Exception {
		LockTemplate holderNode = locks().template();
		LockTemplate waiterNode = locks().template();
		try (LockHandle outer = holderNode.lock(fair())) {
			try (LockHandle inner = holderNode.lock(fair().waitTime(Duration.ZERO))) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(outer.isHeld()).isTrue();
			assertThat(waiterNode.tryLock(fair().waitTime(Duration.ZERO))).isEmpty();
		}
		assertThat(waiterNode.tryLock(fair().waitTime(Duration.ZERO))).hasValueSatisfying(LockHandle::close);
	}

	@Test
	default void tryLockWithoutWaitDoesNotQueue() {
		LockTemplate holderNode = locks().template();
		LockTemplate waiterNode = locks().template();
		RedisCli cli = locks().cli(TICKET);
		try (LockHandle holder = holderNode.lock(fair())) {
			assertThat(waiterNode.tryLock(fair().waitTime(Duration.ZERO))).isEmpty();
			assertThat(queueLength(cli)).isZero();
		}
		assertThat(cli.command("EXISTS", QUEUE, QUEUE + ":deadlines")).isEqualTo(0L);
	}

	@Test
	default void waiterThatTimesOutLeavesTheQueue() throws Exception {
		LockTemplate holderNode = locks().template();
		List<LockTemplate> waiterNodes = List.of(locks().template(), locks().template());
		RedisCli cli = locks().cli(TICKET);
		Future<Long> next;
		LockHandle holder = holderNode.lock(fair());
		try {
			Future<?> impatient = executor()
				.submit(() -> waiterNodes.get(0).lock(fair().waitTime(Duration.ofSeconds(1))));
			awaitQueueLength(cli, 1);
			next = executor().submit(() -> {
				try (LockHandle handle = waiterNodes.get(1).lock(fair().waitTime(TIMEOUT))) {
					return System.nanoTime();
				}
			});
			awaitQueueLength(cli, 2);
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> impatient.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockTimeoutException.class);
			assertThat(queueLength(cli)).isEqualTo(1);
		}
		finally {
			holder.close();
		}
		long released = System.nanoTime();
		assertThat(Duration.ofNanos(next.get(10, TimeUnit.SECONDS) - released)).isLessThan(Duration.ofSeconds(1));
	}

	@Test
	default void interruptedWaiterLeavesTheQueueBeforeItsDeadline() throws Exception {
		LockTemplate holderNode = locks().template();
		List<LockTemplate> waiterNodes = List.of(locks().template(), locks().template());
		RedisCli cli = locks().cli(TICKET);
		Future<Long> next;
		LockHandle holder = holderNode.lock(fair());
		try {
			// It would stay in line for 20 s if giving up did not take it out.
			Future<?> givingUp = executor()
				.submit(() -> waiterNodes.get(0).lock(fair().waitTime(Duration.ofSeconds(20))));
			awaitQueueLength(cli, 1);
			next = executor().submit(() -> {
				try (LockHandle handle = waiterNodes.get(1).lock(fair().waitTime(TIMEOUT))) {
					return System.nanoTime();
				}
			});
			awaitQueueLength(cli, 2);
			givingUp.cancel(true);
			await().atMost(Duration.ofSeconds(5)).until(() -> queueLength(cli) == 1);
		}
		finally {
			holder.close();
		}
		long released = System.nanoTime();
		assertThat(Duration.ofNanos(next.get(30, TimeUnit.SECONDS) - released)).isLessThan(Duration.ofSeconds(1));
	}

	private static LockRequest fair() {
		return LockRequest.of(TICKET).fair(true);
	}

	private static int queueLength(RedisCli cli) {
		return Math.toIntExact((Long) cli.command("LLEN", QUEUE));
	}

	private static void awaitQueueLength(RedisCli cli, int length) {
		await().atMost(Duration.ofSeconds(30)).until(() -> queueLength(cli) == length);
	}

}
