package io.github.redislock.contract;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Several threads of one JVM holding one read lock: each thread's hold is its own, so
 * that re-entering, the refused upgrade and releasing work for each of them while a
 * writer of another node waits.
 */
interface SharedReaderContract extends LockContract {

	/** The name of the read/write lock of these tests. */
	String SHARED_KEY = "doc";

	/** The key that marks a waiting writer of {@value #SHARED_KEY}. */
	String WRITER_INTENT_KEY = "redis-lock:{doc}:rw:writer";

	@Test
	default void eachLocalReaderReentersItsOwnHoldWhileAWriterWaits() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		RedisCli cli = locks().cli(SHARED_KEY);
		Duration timeout = Duration.ofSeconds(20);
		CountDownLatch secondHolds = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		Future<Long> writer;
		try (LockHandle first = node.readLock(SHARED_KEY)) {
			Future<Long> second = executor().submit(() -> {
				try (LockHandle handle = node.readLock(SHARED_KEY)) {
					secondHolds.countDown();
					done.await();
					return handle.fencingToken();
				}
			});
			assertThat(secondHolds.await(10, TimeUnit.SECONDS)).isTrue();
			writer = executor().submit(() -> {
				try (LockHandle handle = otherNode.lock(LockRequest.write(SHARED_KEY).waitTime(timeout))) {
					return handle.fencingToken();
				}
			});
			await().atMost(timeout).until(() -> cli.command("EXISTS", WRITER_INTENT_KEY).equals(1L));
			// A writer waits and keeps new readers out; the first reader's nested read is
			// a re-entry of its own hold, which needs no grant.
			try (LockHandle nested = node.lock(LockRequest.read(SHARED_KEY).waitTime(Duration.ZERO))) {
				assertThat(nested.fencingToken()).isEqualTo(first.fencingToken());
			}
			assertThatIllegalStateException().isThrownBy(() -> node.lock(LockRequest.write(SHARED_KEY)))
				.withMessageContaining("a reader cannot upgrade");
			done.countDown();
			assertThat(second.get(10, TimeUnit.SECONDS)).isNotEqualTo(first.fencingToken());
			assertThat(first.isHeld()).isTrue();
			assertThat(writer).isNotDone();
		}
		assertThat(locks().diagnostics(node).heldCount()).isZero();
		assertThat(writer.get(timeout.toSeconds(), TimeUnit.SECONDS)).isNotNull();
	}

	@Test
	default void localReadersReleaseTheirOwnHoldsAndLetTheWriterIn() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		CountDownLatch held = new CountDownLatch(2);
		CountDownLatch release = new CountDownLatch(1);
		Future<?> first = executor().submit(() -> holdRead(node, held, release));
		Future<?> second = executor().submit(() -> holdRead(node, held, release));
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(locks().diagnostics(node).heldCount()).isEqualTo(2);
		release.countDown();
		first.get(10, TimeUnit.SECONDS);
		second.get(10, TimeUnit.SECONDS);
		assertThat(locks().diagnostics(node).heldCount()).isZero();
		try (LockHandle writer = otherNode.lock(LockRequest.write(SHARED_KEY).waitTime(Duration.ZERO))) {
			assertThat(writer.isHeld()).isTrue();
		}
	}

	private static Void holdRead(LockTemplate node, CountDownLatch held, CountDownLatch release)
			throws InterruptedException {
		try (LockHandle handle = node.readLock(SHARED_KEY)) {
			held.countDown();
			release.await();
		}
		return null;
	}

}
