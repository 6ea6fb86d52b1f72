package io.github.redislock.actuate.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint.AwaitedLockDescriptor;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint.HeldLockDescriptor;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint.RedisLocksDescriptor;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisLocksEndpoint}.
 */
@RedisTest
class RedisLocksEndpointTests {

	private LettuceConnectionFactory connectionFactory;

	private LockTemplate template;

	private RedisLocksEndpoint endpoint;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.connectionFactory = StandaloneLocks.connectionFactory(server);
		RedisLockEngine engine = new RedisLockEngine(this.connectionFactory);
		this.template = new LockTemplate(engine);
		this.endpoint = new RedisLocksEndpoint(engine.diagnostics());
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() {
		this.executor.shutdownNow();
		this.template.close();
		this.connectionFactory.destroy();
	}

	@Test
	void noLocks() {
		RedisLocksDescriptor locks = this.endpoint.locks();
		assertThat(locks.held()).isEmpty();
		assertThat(locks.awaited()).isEmpty();
		assertThat(locks.subscription()).isEqualTo("none");
	}

	@Test
	void heldLocksWithTheirHolderThreadLeaseAndFencingToken() {
		Instant before = Instant.now().minusMillis(1);
		try (LockHandle renewed = this.template.lock("order:1");
				LockHandle fixed = this.template
					.lock(LockRequest.of("job:7").leaseTime(Duration.ofMinutes(5)).reentrant(false))) {
			assertThat(this.endpoint.locks().held()).satisfiesExactlyInAnyOrder((lock) -> {
				assertThat(lock.key()).isEqualTo("order:1");
				assertThat(lock.thread()).isEqualTo(Thread.currentThread().getName());
				assertThat(lock.heldSince()).isBetween(before, Instant.now());
				assertThat(lock.leaseLeftMillis()).isBetween(1L, 30_000L);
				assertThat(lock.renewed()).isTrue();
				assertThat(lock.fencingToken()).isEqualTo(renewed.fencingToken());
				assertThat(lock.lost()).isFalse();
			}, (lock) -> {
				assertThat(lock.key()).isEqualTo("job:7");
				assertThat(lock.thread()).isNull();
				assertThat(lock.leaseLeftMillis()).isBetween(30_000L, 300_000L);
				assertThat(lock.renewed()).isFalse();
				assertThat(lock.fencingToken()).isEqualTo(fixed.fencingToken());
			});
		}
		assertThat(this.endpoint.locks().held()).isEmpty();
	}

	@Test
	void awaitedLocksWithTheirWaiterCount() throws Exception {
		LockHandle held = this.template.lock("order:1");
		CompletableFuture<?> first = CompletableFuture.runAsync(() -> this.template.run("order:1", () -> sleep(10)),
				this.executor);
		CompletableFuture<?> second = CompletableFuture.runAsync(() -> this.template.run("order:1", () -> sleep(10)),
				this.executor);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.endpoint.locks().awaited())
				.containsExactly(new AwaitedLockDescriptor("order:1", 2)));
		assertThat(this.endpoint.locks().held()).extracting(HeldLockDescriptor::key).containsExactly("order:1");
		assertThat(this.endpoint.locks().subscription()).isEqualTo("connected");
		held.close();
		CompletableFuture.allOf(first, second).get(5, TimeUnit.SECONDS);
		assertThat(this.endpoint.locks().awaited()).isEmpty();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
