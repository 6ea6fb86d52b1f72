package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * When Redis loses its data (a restart without persistence, a failover to a replica that
 * had not caught up), a lock held in this JVM may be granted to another thread of the
 * same JVM. Mutual exclusion cannot survive that; what must hold is that the engine never
 * keeps two holds of one exclusive lock: the older one is told it lost the lock, it is
 * never handed on to a third thread, and the newer one re-enters as usual.
 */
@RedisTest
class DataLossTests {

	private static final String KEY = "ledger";

	private StandaloneLocks locks;

	private LockTemplate node;

	private LockTemplate otherNode;

	private LockTemplate thirdNode;

	private RedisCli cli;

	private ExecutorService threads;

	@BeforeEach
	void setUp(RedisServer server) {
		this.locks = new StandaloneLocks(server);
		this.node = this.locks.template();
		this.otherNode = this.locks.template();
		this.thirdNode = this.locks.template();
		this.cli = this.locks.cli();
		this.threads = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.threads.shutdownNow();
		this.threads.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void holdGrantedAgainByRedisToAnotherLocalThreadIsLostAndNeverHandedOn() throws Exception {
		LockHandle first = onThread(() -> this.node.lock(KEY)).get(10, TimeUnit.SECONDS);
		ExecutorService secondThread = Executors.newSingleThreadExecutor();
		CompletableFuture<LockHandle> second = CompletableFuture
			.supplyAsync(() -> this.node.lock(LockRequest.of(KEY).waitTime(Duration.ofSeconds(30))), secondThread);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.locks.diagnostics(this.node).waiterCount() == 1);
		this.cli.flushAll();
		// Another JVM takes the lock Redis forgot, a third is refused it, and the release
		// message (sent since a JVM other than the holder's was refused) lets the waiting
		// thread of this JVM in: that thread sleeps behind its own JVM's holder without
		// asking Redis, so only a release message wakes it before its holder's lease
		// ends.
		LockHandle taken = this.otherNode.lock(KEY);
		assertThat(this.thirdNode.tryLock(KEY, Duration.ZERO)).isEmpty();
		taken.close();
		LockHandle granted = second.get(10, TimeUnit.SECONDS);
		assertThat(first.isHeld()).as("the hold whose lease Redis forgot").isFalse();
		assertThat(granted.isHeld()).isTrue();
		CompletableFuture<Optional<LockHandle>> third = onThread(
				() -> this.node.tryLock(LockRequest.of(KEY).waitTime(Duration.ofSeconds(3))));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.locks.diagnostics(this.node).waiterCount() == 1);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(first::close);
		assertThat(third.get(10, TimeUnit.SECONDS)).as("handed the lost hold while another thread holds the lock")
			.isEmpty();
		assertThat(granted.isHeld()).isTrue();
		Optional<LockHandle> reentered = CompletableFuture
			.supplyAsync(() -> this.node.tryLock(KEY, Duration.ZERO), secondThread)
			.get(10, TimeUnit.SECONDS);
		assertThat(reentered).as("the holder re-entering").get().satisfies((handle) -> {
			assertThat(handle.fencingToken()).isEqualTo(granted.fencingToken());
			handle.close();
		});
		granted.close();
		secondThread.shutdown();
	}

	private <T> CompletableFuture<T> onThread(Supplier<T> action) {
		return CompletableFuture.supplyAsync(action, this.threads);
	}

}
