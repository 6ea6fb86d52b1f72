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

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.LockSnapshot;
import io.github.redislock.LockSnapshot.AwaitedLock;
import io.github.redislock.LockSnapshot.HeldLock;
import io.github.redislock.LockTemplate;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint.AwaitedLockDescriptor;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint.HeldLockDescriptor;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint.PermitsDescriptor;
import io.github.redislock.actuate.endpoint.RedisLocksEndpoint.RedisLocksDescriptor;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisLocksEndpoint} and the {@link LockDiagnostics} it reads.
 */
@RedisTest
class RedisLocksEndpointTests {

	private LettuceConnectionFactory connectionFactory;

	private LockTemplate template;

	private LockDiagnostics diagnostics;

	private RedisLocksEndpoint endpoint;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.connectionFactory = StandaloneLocks.connectionFactory(server);
		RedisLockEngine engine = new RedisLockEngine(this.connectionFactory);
		this.template = new LockTemplate(engine);
		this.diagnostics = engine.diagnostics();
		this.endpoint = new RedisLocksEndpoint(this.diagnostics);
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
		assertThat(locks.permits()).isEmpty();
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
				assertThat(lock.mode()).isEqualTo(LockMode.EXCLUSIVE);
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
				.containsExactly(new AwaitedLockDescriptor("order:1", LockMode.EXCLUSIVE, 2)));
		assertThat(this.endpoint.locks().held()).extracting(HeldLockDescriptor::key).containsExactly("order:1");
		assertThat(this.endpoint.locks().subscription()).isEqualTo("connected");
		held.close();
		CompletableFuture.allOf(first, second).get(5, TimeUnit.SECONDS);
		assertThat(this.endpoint.locks().awaited()).isEmpty();
	}

	@Test
	void permitsHeldAndAwaitedWithTheirModeAndCountPerName() throws Exception {
		try (LockHandle first = this.template.lock(LockRequest.permit("exports", 2).reentrant(false));
				LockHandle second = this.template.lock(LockRequest.permit("exports", 2).reentrant(false));
				LockHandle lock = this.template.lock("order:1")) {
			CompletableFuture<?> waiter = CompletableFuture.runAsync(
					() -> this.template.run(LockRequest.permit("exports", 2).waitTime(Duration.ofSeconds(20)), () -> {
					}), this.executor);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(this.diagnostics.snapshot().awaited())
					.containsExactly(new AwaitedLock("exports", LockMode.PERMIT, 1)));
			LockSnapshot snapshot = this.diagnostics.snapshot();
			assertThat(snapshot.held()).extracting(HeldLock::key, HeldLock::mode, HeldLock::fencingToken)
				.containsExactlyInAnyOrder(tuple("exports", LockMode.PERMIT, first.fencingToken()),
						tuple("exports", LockMode.PERMIT, second.fencingToken()),
						tuple("order:1", LockMode.EXCLUSIVE, lock.fencingToken()));
			assertThat(this.diagnostics.heldCount(LockMode.PERMIT)).isEqualTo(2);
			assertThat(this.diagnostics.waiterCount(LockMode.PERMIT)).isOne();
			assertThat(this.diagnostics.waiterCount(LockMode.EXCLUSIVE)).isZero();
			RedisLocksDescriptor locks = this.endpoint.locks();
			assertThat(locks.held()).extracting(HeldLockDescriptor::key, HeldLockDescriptor::mode)
				.containsExactlyInAnyOrder(tuple("exports", LockMode.PERMIT), tuple("exports", LockMode.PERMIT),
						tuple("order:1", LockMode.EXCLUSIVE));
			assertThat(locks.awaited()).containsExactly(new AwaitedLockDescriptor("exports", LockMode.PERMIT, 1));
			assertThat(locks.permits()).containsExactly(new PermitsDescriptor("exports", 2, 1));
			first.close();
			waiter.get(5, TimeUnit.SECONDS);
		}
		assertThat(this.endpoint.locks().permits()).isEmpty();
		assertThat(this.endpoint.locks().held()).isEmpty();
	}

	@Test
	void readersAndWritersWaitingForOneLockAreToldApartByMode() throws Exception {
		LockHandle held = this.template.lock(LockRequest.write("doc:1"));
		CompletableFuture<?> reader = CompletableFuture
			.runAsync(() -> this.template.run(LockRequest.read("doc:1"), () -> {
			}), this.executor);
		CompletableFuture<?> writer = CompletableFuture
			.runAsync(() -> this.template.run(LockRequest.write("doc:1"), () -> {
			}), this.executor);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.endpoint.locks().awaited()).containsExactlyInAnyOrder(
					new AwaitedLockDescriptor("doc:1", LockMode.READ, 1),
					new AwaitedLockDescriptor("doc:1", LockMode.WRITE, 1)));
		assertThat(this.endpoint.locks().held()).extracting(HeldLockDescriptor::mode).containsExactly(LockMode.WRITE);
		assertThat(this.endpoint.locks().permits()).isEmpty();
		held.close();
		CompletableFuture.allOf(reader, writer).get(5, TimeUnit.SECONDS);
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
