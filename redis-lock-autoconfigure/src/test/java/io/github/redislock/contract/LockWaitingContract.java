package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiting for a held lock: woken by release messages from every primary, bounded,
 * interruptible, one wake-up per release, no Redis traffic while asleep, and a retry as
 * soon as the subscription reconnects.
 */
interface LockWaitingContract extends LockContract {

	/** The lock name of the tests that wait on one lock. */
	String ORDER = "order:1";

	/** A wait far longer than any test should take. */
	Duration LONG_WAIT = Duration.ofSeconds(20);

	/**
	 * Waiters on the other node sleep on a subscription that a release on any primary
	 * reaches (sharded on the lock's primary, or plain anywhere and carried by the
	 * cluster bus): each is woken well within a second or two, when the holder's 30 s
	 * lease would have kept it asleep for its whole 20 s wait.
	 */
	@Test
	default void waiterIsWokenByReleaseLongBeforeTheHoldersLeaseEnds() throws Exception {
		LockTemplate holderNode = locks().template();
		LockTemplate waiterNode = locks().template();
		List<String> names = locks().names("order", 1);
		List<LockHandle> held = new ArrayList<>();
		List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
		for (String name : names) {
			held.add(holderNode.lock(name));
			LockRequest request = LockRequest.of(name).waitTime(LONG_WAIT);
			waiters.add(CompletableFuture.supplyAsync(() -> waiterNode.lock(request), executor()));
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> locks().diagnostics(waiterNode).subscribedChannelCount() == names.size()
					&& locks().diagnostics(waiterNode).sleepingWaiterCount() == names.size());
		for (int i = 0; i < names.size(); i++) {
			assertThat(waiters.get(i)).as(names.get(i)).isNotDone();
			long releasedAt = System.nanoTime();
			held.get(i).close();
			LockHandle granted = waiters.get(i).get(5, TimeUnit.SECONDS);
			assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as(names.get(i))
				.isLessThan(Duration.ofSeconds(2));
			assertThat(granted.isHeld()).isTrue();
			assertThat(granted.fencingToken()).isGreaterThan(held.get(i).fencingToken());
			// Handles may be closed from any thread.
			granted.close();
		}
	}

	@Test
	default void waiterSendsNoCommandWhileAsleep() {
		LockTemplate template = locks().template();
		LockTemplate holderNode = locks().template();
		LockHandle held = holderNode.lock(ORDER);
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> template.lock(LockRequest.of(ORDER).waitTime(LONG_WAIT)), executor());
		awaitAsleep(template, 1);
		long roundTrips = locks().roundTrips();
		await().during(Duration.ofMillis(700))
			.atMost(Duration.ofSeconds(2))
			.until(() -> locks().roundTrips() == roundTrips);
		held.close();
		waiter.join().close();
	}

	@Test
	default void waiterOfACrashedHolderWakesWhenItsLeaseRunsOut() {
		LockTemplate template = locks().template();
		RedisCli cli = locks().cli(ORDER);
		// A holder that crashed publishes nothing: its key simply expires, 800 ms after
		// the SET, which Redis ran after the clock was read.
		long start = System.nanoTime();
		cli.command("SET", "redis-lock:{order:1}", "crashed-owner:1", "PX", "800");
		try (LockHandle handle = template.lock(LockRequest.of(ORDER).waitTime(LONG_WAIT))) {
			// Less a few milliseconds for Redis' clock
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(790),
					Duration.ofSeconds(5));
		}
	}

	@Test
	default void waitIsBoundedByTheWaitTime() throws Exception {
		LockTemplate template = locks().template();
		LockTemplate holderNode = locks().template();
		Duration wait = Duration.ofMillis(300);
		try (LockHandle held = holderNode.lock(ORDER)) {
			long start = System.nanoTime();
			// On a thread of its own, so that a wait that never ends fails the test
			// instead of hanging it.
			Future<Optional<LockHandle>> attempt = executor().submit(() -> template.tryLock(ORDER, wait));
			assertThat(attempt.get(wait.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS)).isEmpty();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(wait, wait.plus(SLACK));
		}
		assertThat(locks().diagnostics(template).heldCount()).isZero();
	}

	@Test
	default void interruptedWaiterKeepsItsInterruptStatusAndHoldsNothing() throws Exception {
		LockTemplate template = locks().template();
		LockTemplate holderNode = locks().template();
		LockHandle held = holderNode.lock(ORDER);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
		AtomicReference<Thread> waiter = new AtomicReference<>();
		Future<?> waiting = executor().submit(() -> {
			waiter.set(Thread.currentThread());
			try {
				template.lock(LockRequest.of(ORDER).waitTime(LONG_WAIT));
			}
			catch (Throwable ex) {
				failure.set(ex);
				interruptedAfter.set(Thread.currentThread().isInterrupted());
			}
		});
		awaitAsleep(template, 1);
		waiter.get().interrupt();
		waiting.get(5, TimeUnit.SECONDS);
		assertThat(failure.get()).isInstanceOf(LockInterruptedException.class).hasMessageContaining(ORDER);
		assertThat(interruptedAfter.get()).isTrue();
		held.close();
		assertThat(locks().diagnostics(template).heldCount()).isZero();
		assertThat(LockKeyValues.holder(locks().cli(ORDER), "redis-lock:{order:1}")).isNull();
	}

	@Test
	default void releaseWakesOneLocalWaiterNotAll() {
		LockTemplate template = locks().template();
		LockTemplate holderNode = locks().template();
		LockHandle held = holderNode.lock(ORDER);
		int waiters = 8;
		AtomicInteger granted = new AtomicInteger();
		CountDownLatch releaseAll = new CountDownLatch(1);
		List<CompletableFuture<Void>> futures = new ArrayList<>();
		for (int i = 0; i < waiters; i++) {
			futures.add(CompletableFuture.runAsync(() -> {
				try (LockHandle handle = template.lock(LockRequest.of(ORDER).waitTime(LONG_WAIT))) {
					granted.incrementAndGet();
					releaseAll.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, executor()));
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> locks().diagnostics(template).sleepingWaiterCount() == waiters);
		long before = locks().roundTrips();
		held.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> granted.get() == 1);
		// The release and the one grant; the seven others sleep on.
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(2))
			.until(() -> locks().roundTrips() - before == 2);
		releaseAll.countDown();
		CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
		assertThat(granted).hasValue(waiters);
	}

	@Test
	default void thousandKeysCanBeWaitedOnAtOnceAndLeaveNoSubscription() {
		LockTemplate template = locks().template();
		LockTemplate holderNode = locks().template();
		int keys = 1000;
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < keys; i++) {
			held.add(holderNode.lock("key:" + i));
		}
		ExecutorService many = Executors.newFixedThreadPool(keys, CallerThreads.factory("many-keys-"));
		try {
			List<CompletableFuture<Long>> waiters = new ArrayList<>();
			for (int i = 0; i < keys; i++) {
				LockRequest request = LockRequest.of("key:" + i).waitTime(Duration.ofSeconds(60));
				waiters.add(CompletableFuture.supplyAsync(() -> {
					try (LockHandle handle = template.lock(request)) {
						return handle.fencingToken();
					}
				}, many));
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> locks().diagnostics(template).subscribedChannelCount() == keys);
			held.forEach(LockHandle::close);
			CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			many.shutdownNow();
		}
		// Unsubscribes are sent without waiting for their answers.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> locks().diagnostics(template).subscribedChannelCount() == 0
					&& locks().subscribedLockChannels().isEmpty());
		assertThat(locks().diagnostics(template).heldCount()).isZero();
	}

	@Test
	default void waiterRetriesAtOnceWhenTheSubscriptionReconnects() {
		LockTemplate template = locks().template();
		RedisCli cli = locks().cli(ORDER);
		// A lock with no expiry and no release message: only the reconnect can wake the
		// waiter.
		cli.command("SET", "redis-lock:{order:1}", "stuck-owner:1");
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> template.lock(LockRequest.of(ORDER).waitTime(LONG_WAIT)), executor());
		awaitAsleep(template, 1);
		long start = System.nanoTime();
		cli.command("DEL", "redis-lock:{order:1}");
		locks().killSubscriptions();
		LockHandle granted = waiter.join();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		granted.close();
	}

	/**
	 * Waits until the node's waiters subscribed and then, after one more attempt, sleep.
	 */
	private void awaitAsleep(LockTemplate template, int channels) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> locks().diagnostics(template).subscribedChannelCount() == channels);
		await().atMost(Duration.ofSeconds(5)).until(() -> locks().diagnostics(template).sleepingWaiterCount() >= 1);
	}

}
