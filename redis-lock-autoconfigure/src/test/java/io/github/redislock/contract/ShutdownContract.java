package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockShutdownException;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Graceful shutdown ({@link LockTemplate#shutdown(Duration)}): acquisitions and waiters
 * fail with a {@link LockShutdownException}, holders that finish within the grace release
 * as usual, and what is still held then is released in Redis, so that other instances get
 * it at once rather than after its lease.
 */
interface ShutdownContract extends LockContract {

	/** How long after the shutdown other instances must have the locks: not the lease. */
	Duration PROMPTLY = Duration.ofSeconds(1);

	/** How long the other threads wait for their locks: longer than the test. */
	Duration WAIT = Duration.ofSeconds(20);

	@Test
	default void shutdownReleasesWhatIsHeldToOtherInstancesWakesWaitersAndLeavesNothingBehind() throws Exception {
		LockTemplate closing = locks().template();
		LockTemplate otherNode = locks().template();
		// Held by the closing node past the grace (by this thread, busy shutting it
		// down).
		List<LockRequest> held = List.of(LockRequest.of("held:exclusive"), LockRequest.of("held:fair").fair(true),
				LockRequest.read("held:read"));
		List<LockHandle> handles = held.stream().map(closing::lock).toList();
		// The closing node waits for locks the other node holds: in a fair queue, and as
		// a
		// writer whose intent keeps readers out.
		List<LockHandle> othersHeld = List.of(otherNode.lock("wait:exclusive"),
				otherNode.lock(LockRequest.of("wait:fair").fair(true)), otherNode.lock(LockRequest.read("wait:rw")));
		List<Future<LockHandle>> closingWaiters = new ArrayList<>();
		for (LockRequest request : List.of(LockRequest.of("wait:exclusive"), LockRequest.of("wait:fair").fair(true),
				LockRequest.write("wait:rw"))) {
			closingWaiters.add(executor().submit(() -> closing.lock(request.waitTime(WAIT))));
		}
		// The other node waits for what the closing node holds.
		List<Future<Long>> successors = new ArrayList<>();
		for (LockRequest request : List.of(LockRequest.of("held:exclusive").fair(false),
				LockRequest.of("held:fair").fair(true), LockRequest.write("held:read"))) {
			successors.add(executor().submit(() -> {
				try (LockHandle handle = otherNode.lock(request.waitTime(WAIT))) {
					return System.nanoTime();
				}
			}));
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> locks().diagnostics(closing).sleepingWaiterCount() == 3
					&& locks().diagnostics(otherNode).sleepingWaiterCount() == 3);
		RedisCli fairCli = locks().cli("wait:fair");
		RedisCli rwCli = locks().cli("wait:rw");
		assertThat(fairCli.command("LLEN", LockFixture.lockKey("wait:fair") + ":queue")).isEqualTo(1L);
		assertThat(rwCli.command("EXISTS", LockFixture.lockKey("wait:rw") + ":rw:writer")).isEqualTo(1L);

		closing.shutdown(Duration.ofMillis(300));
		long shutDown = System.nanoTime();

		for (Future<LockHandle> waiter : closingWaiters) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(1, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockShutdownException.class);
		}
		// Withdrawn: the other node's lock is alone in Redis.
		assertThat(fairCli.command("EXISTS", LockFixture.lockKey("wait:fair") + ":queue")).isEqualTo(0L);
		assertThat(rwCli.command("EXISTS", LockFixture.lockKey("wait:rw") + ":rw:writer")).isEqualTo(0L);
		for (Future<Long> successor : successors) {
			long acquired = successor.get(PROMPTLY.toMillis() + 1000, TimeUnit.MILLISECONDS);
			assertThat(Duration.ofNanos(acquired - shutDown)).isLessThan(PROMPTLY);
		}
		for (LockHandle handle : handles) {
			assertThat(handle.isHeld()).as(handle.key()).isFalse();
			assertThatExceptionOfType(LockLostException.class).as(handle.key())
				.isThrownBy(handle::close)
				.withMessageContaining("shut down");
		}
		othersHeld.forEach(LockHandle::close);
		// What is left are fence keys, shared by every instance, release marks, which
		// expire within the client's replay window, and the tombstones of exclusive
		// locks, which keep both.
		List<String> left = LockKeyValues.keysLessTombstones(locks(), "redis-lock:*")
			.stream()
			.filter((key) -> !key.endsWith(":fence") && !key.contains(":released:"))
			.toList();
		assertThat(left).isEmpty();
		for (String mark : locks().keys("redis-lock:*:released:*")) {
			assertThat(locks().cli(nameOf(mark)).pttl(mark)).as(mark).isPositive();
		}
	}

	@Test
	default void holderThatFinishesWithinTheGraceReleasesNormally() throws Exception {
		LockTemplate closing = locks().template();
		LockTemplate otherNode = locks().template();
		LockHandle handle = closing.lock("order:1");
		Future<?> shutdown = executor().submit(() -> closing.shutdown(WAIT));
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThatExceptionOfType(LockShutdownException.class)
				.isThrownBy(() -> closing.tryLock(LockRequest.of("order:1").reentrant(false).waitTime(Duration.ZERO))));
		assertThat(handle.isHeld()).isTrue();
		handle.close();
		// Done once the last hold is released, long before the grace ends.
		shutdown.get(2, TimeUnit.SECONDS);
		assertThat(otherNode.tryLock("order:1", Duration.ZERO)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	default void acquisitionsAfterTheShutdownFailAtOnceAndShuttingDownAgainHasNoEffect() {
		LockTemplate closing = locks().template();
		closing.shutdown(Duration.ZERO);
		assertThatExceptionOfType(LockShutdownException.class).isThrownBy(() -> closing.lock("order:1"))
			.withMessageContaining("shutting down")
			.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("order:1"));
		assertThatExceptionOfType(LockShutdownException.class)
			.isThrownBy(() -> closing.tryLock(LockRequest.read("order:1").waitTime(WAIT)));
		closing.shutdown(WAIT);
		closing.close();
	}

	/** The lock name in a key's hash tag. */
	private static String nameOf(String key) {
		return key.substring(key.indexOf('{') + 1, key.indexOf('}'));
	}

}
