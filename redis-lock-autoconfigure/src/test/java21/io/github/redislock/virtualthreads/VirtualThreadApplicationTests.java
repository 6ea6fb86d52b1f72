package io.github.redislock.virtualthreads;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;
import io.github.redislock.virtualthreads.StockConfiguration.Purchases;
import io.github.redislock.virtualthreads.StockConfiguration.Stock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An application with {@code spring.threads.virtual.enabled=true}: its
 * {@code @DistributedLock} methods, called from {@code @Async} methods on the virtual
 * threads of the task executor Spring Boot configures, exclude each other, wait for a
 * lock another instance holds, and time out when it stays held; and the engine's own
 * background work runs on virtual threads too.
 */
@RedisTest
class VirtualThreadApplicationTests {

	private static final int CALLS = 2_000;

	private final ApplicationContextRunner runner;

	private final StandaloneLocks otherInstance;

	VirtualThreadApplicationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
					TaskExecutionAutoConfiguration.class))
			.withUserConfiguration(StockConfiguration.class)
			.withPropertyValues("spring.threads.virtual.enabled=true", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port());
		this.otherInstance = new StandaloneLocks(redis);
	}

	@BeforeEach
	@AfterEach
	void flushRedis() {
		this.otherInstance.flush();
	}

	@AfterEach
	void closeOtherInstance() throws Exception {
		this.otherInstance.close();
	}

	@Test
	void lockedMethodCalledFromManyVirtualThreadsRunsOneCallAtATime() {
		this.runner.run((context) -> {
			Purchases purchases = context.getBean(Purchases.class);
			Stock stock = context.getBean(Stock.class);
			List<CompletableFuture<Void>> calls = IntStream.range(0, CALLS)
				.mapToObj((i) -> purchases.buy(i % StockConfiguration.PRODUCTS))
				.toList();
			CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
			for (int product = 0; product < StockConfiguration.PRODUCTS; product++) {
				assertThat(stock.sold(product)).as("sold of product %d", product)
					.isEqualTo(CALLS / StockConfiguration.PRODUCTS);
			}
			assertThat(stock.overlaps()).as("calls that found another call of their product inside").isZero();
			assertThat(stock.callsOnPlatformThreads()).as("calls not on a virtual thread").isZero();
		});
	}

	@Test
	void enginesOwnWorkRunsOnVirtualThreads() {
		this.runner.run((context) -> {
			LockEngine engine = context.getBean(LockEngine.class);
			LockHandle held = this.otherInstance.template().lock("product:2");
			CompletableFuture<LockHandle> pending = engine.acquireAsync(LockRequest.of("product:2"),
					Duration.ofSeconds(20));
			// Chained while it waits: runs where the engine completes it, a round of its
			// pending acquisition woken by the release.
			CompletableFuture<Thread> completedOn = pending.thenApply((handle) -> Thread.currentThread());
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.diagnostics().waiterCount() == 1);
			held.close();
			Thread thread = completedOn.get(10, TimeUnit.SECONDS);
			assertThat(thread.isVirtual()).as("%s is virtual", thread).isTrue();
			assertThat(thread.getName()).startsWith("redis-lock-");
			pending.get().closeAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		});
	}

	@Test
	void callOnAVirtualThreadWaitsWhileAnotherInstanceHoldsTheLockAndTimesOutIfItStaysHeld() {
		this.runner.run((context) -> {
			Purchases purchases = context.getBean(Purchases.class);
			Stock stock = context.getBean(Stock.class);
			LockHandle held = this.otherInstance.template().lock("product:1");
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> purchases.buyWithoutWaiting(1).get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockTimeoutException.class);
			CompletableFuture<Void> patient = purchases.buy(1);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> context.getBean(LockEngine.class).diagnostics().sleepingWaiterCount() == 1);
			assertThat(patient).isNotDone();
			held.close();
			patient.get(10, TimeUnit.SECONDS);
			assertThat(stock.sold(1)).isEqualTo(1);
			assertThat(stock.callsOnPlatformThreads()).isZero();
		});
	}

}
