package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.protocol.ProtocolVersion;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.CommandStats;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiting for a held lock: woken by release messages, bounded, interruptible, one wake-up
 * per release, and no Redis traffic while asleep.
 */
@RedisTest
class LockWaitingTests {

	private static final LockRequest LONG_WAIT = LockRequest.of("order:1").waitTime(Duration.ofSeconds(20));

	private StandaloneLocks locks;

	private LockTemplate template;

	private LockTemplate holderNode;

	private RedisCli cli;

	private final ExecutorService executor = LockFixture.executor("lock-waiting-tests");

	@BeforeEach
	void setUp(RedisServer server) {
		this.locks = new StandaloneLocks(server);
		this.template = this.locks.template();
		this.holderNode = this.locks.template();
		this.cli = this.locks.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void waiterIsWokenByReleaseLongBeforeTheHoldersLeaseEnds() throws Exception {
		LockHandle held = this.holderNode.lock("order:1");
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> this.template.lock(LONG_WAIT),
				this.executor);
		awaitSubscribed(this.template, 1);
		held.close();
		// The holder's lease is 30 s: only the release message can wake the waiter this
		// soon.
		LockHandle granted = waiter.get(5, TimeUnit.SECONDS);
		assertThat(granted.isHeld()).isTrue();
		assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
		closeOn(granted);
	}

	/**
	 * Over RESP2 a subscribed connection refuses every other command, so the acquire a
	 * release message triggers cannot go out on it: it goes out on the engine's own
	 * connection instead, and the waiter still wakes holding the lock.
	 */
	@Test
	void waiterIsWokenByReleaseOverResp2(RedisServer server) throws Exception {
		LettuceConnectionFactory resp2 = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()),
				LettuceClientConfiguration.builder()
					.clientOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build())
					.build());
		resp2.afterPropertiesSet();
		resp2.start();
		RedisLockEngine engine = new RedisLockEngine(resp2);
		try (LockTemplate waiting = new LockTemplate(engine)) {
			for (int i = 0; i < 3; i++) {
				LockHandle held = this.holderNode.lock("order:1");
				CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> waiting.lock(LONG_WAIT),
						this.executor);
				await().atMost(Duration.ofSeconds(5)).until(() -> engine.diagnostics().sleepingWaiterCount() == 1);
				held.close();
				LockHandle granted = waiter.get(5, TimeUnit.SECONDS);
				assertThat(granted.isHeld()).isTrue();
				closeOn(granted);
			}
		}
		finally {
			resp2.destroy();
		}
	}

	@Test
	void waiterSendsNoCommandWhileAsleep() {
		LockHandle held = this.holderNode.lock("order:1");
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> this.template.lock(LONG_WAIT),
				this.executor);
		awaitSubscribed(this.template, 1);
		long roundTrips = CommandStats.roundTrips(this.cli);
		await().during(Duration.ofMillis(700))
			.atMost(Duration.ofSeconds(2))
			.until(() -> CommandStats.roundTrips(this.cli) == roundTrips);
		held.close();
		closeOn(waiter.join());
	}

	@Test
	void waiterOfACrashedHolderWakesWhenItsLeaseRunsOut() {
		// A holder that crashed publishes nothing: its key simply expires, 800 ms after
		// the SET, which Redis ran after the clock was read.
		long start = System.nanoTime();
		this.cli.command("SET", "redis-lock:{order:1}", "crashed-owner:1", "PX", "800");
		try (LockHandle handle = this.template.lock(LONG_WAIT)) {
			// Less a few milliseconds for Redis' clock
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(790),
					Duration.ofSeconds(5));
		}
	}

	@Test
	void waitIsBoundedByTheWaitTime() {
		try (LockHandle held = this.holderNode.lock("order:1")) {
			long start = System.nanoTime();
			assertThat(this.template.tryLock("order:1", Duration.ofMillis(300))).isEmpty();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		}
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void interruptedWaiterKeepsItsInterruptStatusAndHoldsNothing() throws Exception {
		LockHandle held = this.holderNode.lock("order:1");
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
		AtomicReference<Thread> waiter = new AtomicReference<>();
		Future<?> waiting = this.executor.submit(() -> {
			waiter.set(Thread.currentThread());
			try {
				this.template.lock(LONG_WAIT);
			}
			catch (Throwable ex) {
				failure.set(ex);
				interruptedAfter.set(Thread.currentThread().isInterrupted());
			}
		});
		awaitSubscribed(this.template, 1);
		waiter.get().interrupt();
		waiting.get(5, TimeUnit.SECONDS);
		assertThat(failure.get()).isInstanceOf(LockInterruptedException.class).hasMessageContaining("order:1");
		assertThat(interruptedAfter.get()).isTrue();
		held.close();
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
		assertThat(this.cli.get("redis-lock:{order:1}")).isNull();
	}

	@Test
	void releaseWakesOneLocalWaiterNotAll() {
		LockHandle held = this.holderNode.lock("order:1");
		int waiters = 8;
		AtomicInteger granted = new AtomicInteger();
		CountDownLatch releaseAll = new CountDownLatch(1);
		List<CompletableFuture<Void>> futures = new ArrayList<>();
		for (int i = 0; i < waiters; i++) {
			futures.add(CompletableFuture.runAsync(() -> {
				try (LockHandle handle = this.template.lock(LONG_WAIT)) {
					granted.incrementAndGet();
					releaseAll.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, this.executor));
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.locks.diagnostics(this.template).sleepingWaiterCount() == waiters);
		long before = CommandStats.roundTrips(this.cli);
		held.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> granted.get() == 1);
		// The release and the one grant; the seven others sleep on.
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(2))
			.until(() -> CommandStats.roundTrips(this.cli) - before == 2);
		releaseAll.countDown();
		CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
		assertThat(granted).hasValue(waiters);
	}

	@Test
	void thousandKeysCanBeWaitedOnAtOnceAndLeaveNoSubscription() {
		int keys = 1000;
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < keys; i++) {
			held.add(this.holderNode.lock("key:" + i));
		}
		ExecutorService many = Executors.newFixedThreadPool(keys);
		try {
			List<CompletableFuture<Long>> waiters = new ArrayList<>();
			for (int i = 0; i < keys; i++) {
				LockRequest request = LockRequest.of("key:" + i).waitTime(Duration.ofSeconds(60));
				waiters.add(CompletableFuture.supplyAsync(() -> {
					try (LockHandle handle = this.template.lock(request)) {
						return handle.fencingToken();
					}
				}, many));
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> this.locks.diagnostics(this.template).subscribedChannelCount() == keys);
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
			.until(() -> this.locks.diagnostics(this.template).subscribedChannelCount() == 0
					&& lockChannels().isEmpty());
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void waiterRetriesAtOnceWhenTheSubscriptionReconnects() {
		// A lock with no expiry and no release message: only the reconnect can wake the
		// waiter.
		this.cli.command("SET", "redis-lock:{order:1}", "stuck-owner:1");
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> this.template.lock(LONG_WAIT),
				this.executor);
		awaitSubscribed(this.template, 1);
		long start = System.nanoTime();
		this.cli.command("DEL", "redis-lock:{order:1}");
		this.cli.command("CLIENT", "KILL", "TYPE", "pubsub");
		LockHandle granted = waiter.join();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		closeOn(granted);
	}

	private void awaitSubscribed(LockTemplate template, int channels) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.locks.diagnostics(template).subscribedChannelCount() == channels);
		// Subscribed, then one more attempt: wait until the waiter has made it and
		// sleeps.
		await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.diagnostics(template).sleepingWaiterCount() >= 1);
	}

	@SuppressWarnings("unchecked")
	private List<Object> lockChannels() {
		return (List<Object>) this.cli.command("PUBSUB", "CHANNELS", "redis-lock:{*");
	}

	private void closeOn(LockHandle handle) {
		// Handles may be closed from any thread.
		handle.close();
	}

}
