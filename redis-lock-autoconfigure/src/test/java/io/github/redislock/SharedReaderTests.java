package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Several threads of one JVM holding one read lock: each thread's hold is its own, so
 * that re-entering, the refused upgrade and releasing work for each of them while a
 * writer of another JVM waits.
 */
@RedisTest
class SharedReaderTests {

	private static final String KEY = "doc";

	private static final String WRITER_INTENT_KEY = "redis-lock:{doc}:rw:writer";

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	private StandaloneLocks locks;

	private LockTemplate node;

	private LockTemplate otherNode;

	private RedisCli cli;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.locks = new StandaloneLocks(server);
		this.node = this.locks.template();
		this.otherNode = this.locks.template();
		this.cli = this.locks.cli();
		this.executor = LockFixture.executor("shared-reader-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void eachLocalReaderReentersItsOwnHoldWhileAWriterWaits() throws Exception {
		CountDownLatch secondHolds = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		Future<Long> writer;
		try (LockHandle first = this.node.readLock(KEY)) {
			Future<Long> second = this.executor.submit(() -> {
				try (LockHandle handle = this.node.readLock(KEY)) {
					secondHolds.countDown();
					done.await();
					return handle.fencingToken();
				}
			});
			assertThat(secondHolds.await(10, TimeUnit.SECONDS)).isTrue();
			writer = this.executor.submit(() -> {
				try (LockHandle handle = this.otherNode.lock(LockRequest.write(KEY).waitTime(TIMEOUT))) {
					return handle.fencingToken();
				}
			});
			await().atMost(TIMEOUT).until(() -> this.cli.command("EXISTS", WRITER_INTENT_KEY).equals(1L));
			// A writer waits and keeps new readers out; the first reader's nested read is
			// a re-entry of its own hold, which needs no grant.
			try (LockHandle nested = this.node.lock(LockRequest.read(KEY).waitTime(Duration.ZERO))) {
				assertThat(nested.fencingToken()).isEqualTo(first.fencingToken());
			}
			assertThatIllegalStateException().isThrownBy(() -> this.node.lock(LockRequest.write(KEY)))
				.withMessageContaining("a reader cannot upgrade");
			done.countDown();
			assertThat(second.get(10, TimeUnit.SECONDS)).isNotEqualTo(first.fencingToken());
			assertThat(first.isHeld()).isTrue();
			assertThat(writer).isNotDone();
		}
		assertThat(this.locks.diagnostics(this.node).heldCount()).isZero();
		assertThat(writer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
	}

	@Test
	void localReadersReleaseTheirOwnHoldsAndLetTheWriterIn() throws Exception {
		CountDownLatch held = new CountDownLatch(2);
		CountDownLatch release = new CountDownLatch(1);
		Future<?> first = this.executor.submit(() -> holdRead(held, release));
		Future<?> second = this.executor.submit(() -> holdRead(held, release));
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.locks.diagnostics(this.node).heldCount()).isEqualTo(2);
		release.countDown();
		first.get(10, TimeUnit.SECONDS);
		second.get(10, TimeUnit.SECONDS);
		assertThat(this.locks.diagnostics(this.node).heldCount()).isZero();
		try (LockHandle writer = this.otherNode.lock(LockRequest.write(KEY).waitTime(Duration.ZERO))) {
			assertThat(writer.isHeld()).isTrue();
		}
	}

	private Void holdRead(CountDownLatch held, CountDownLatch release) throws InterruptedException {
		try (LockHandle handle = this.node.readLock(KEY)) {
			held.countDown();
			release.await();
		}
		return null;
	}

}
