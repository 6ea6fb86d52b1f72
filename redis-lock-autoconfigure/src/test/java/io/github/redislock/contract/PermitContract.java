package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Permits ({@link LockRequest#permit}): at most the limit hold at once across nodes,
 * every grant with a fencing token above every earlier one, waiters woken by releases
 * (one per freed permit) and by nothing else they could miss, leases that end for a
 * holder that stops and are renewed for one that runs, a lost permit told, and a limit
 * that changes between requests.
 */
interface PermitContract extends LockContract {

	/** The Redis key of the holders of a name's permits. */
	static String permitsKey(String name) {
		return LockFixture.lockKey(name) + ":permits";
	}

	@Test
	default void atMostTheLimitHoldAcrossNodesAndEveryGrantIsFencedAboveTheEarlierOnes() throws Exception {
		List<LockTemplate> nodes = List.of(locks().template(), locks().template());
		int limit = 4;
		int threads = 16;
		int iterations = 40;
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger peak = new AtomicInteger();
		AtomicLong greatestToken = new AtomicLong();
		List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Future<?>> runs = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			LockTemplate node = nodes.get(t % nodes.size());
			runs.add(executor().submit(() -> {
				for (int i = 0; i < iterations; i++) {
					long before = greatestToken.get();
					try (LockHandle permit = node
						.lock(LockRequest.permit("quota", limit).waitTime(Duration.ofSeconds(20)))) {
						if (permit.fencingToken() <= before) {
							violations.add("token " + permit.fencingToken() + " not above " + before);
						}
						greatestToken.accumulateAndGet(permit.fencingToken(), Math::max);
						int now = inside.incrementAndGet();
						peak.accumulateAndGet(now, Math::max);
						Thread.sleep(1);
						inside.decrementAndGet();
					}
				}
				return null;
			}));
		}
		for (Future<?> run : runs) {
			run.get(60, TimeUnit.SECONDS);
		}
		assertThat(violations).isEmpty();
		assertThat(peak.get()).isBetween(2, limit);
		assertThat(locks().cli("quota").command("HLEN", permitsKey("quota"))).isIn(0L, 1L, 2L);
	}

	@Test
	default void theLimitRefusesOneMoreUntilAPermitIsReleasedAndTheWaiterIsWokenByTheRelease() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			held.add(node.lock(LockRequest.permit("exports", 3).reentrant(false)));
		}
		assertThat(otherNode.tryLock(LockRequest.permit("exports", 3).waitTime(Duration.ZERO))).isEmpty();
		// Leases of the watchdog's default length: the waiter gets in long before one
		// ends.
		Future<Long> waiter = executor().submit(() -> {
			try (LockHandle permit = otherNode
				.lock(LockRequest.permit("exports", 3).waitTime(Duration.ofSeconds(20)))) {
				return permit.fencingToken();
			}
		});
		await().atMost(SLACK).until(() -> locks().diagnostics(otherNode).sleepingWaiterCount() == 1);
		held.remove(1).close();
		assertThat(waiter.get(SLACK.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(held.get(1).fencingToken());
		held.forEach(LockHandle::close);
	}

	@Test
	default void everyFreedPermitLetsOneWaiterInOnEveryNode() throws Exception {
		LockTemplate node = locks().template();
		List<LockTemplate> waitingNodes = List.of(locks().template(), locks().template());
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			held.add(node.lock(LockRequest.permit("batch", 4).reentrant(false)));
		}
		CountDownLatch granted = new CountDownLatch(4);
		CountDownLatch done = new CountDownLatch(1);
		for (int i = 0; i < 4; i++) {
			LockTemplate waiting = waitingNodes.get(i % 2);
			executor().submit(() -> {
				try (LockHandle permit = waiting
					.lock(LockRequest.permit("batch", 4).waitTime(Duration.ofSeconds(30)))) {
					granted.countDown();
					done.await();
				}
				return null;
			});
		}
		await().atMost(SLACK)
			.until(() -> waitingNodes.stream()
				.mapToInt((n) -> locks().diagnostics(n).sleepingWaiterCount())
				.sum() == 4);
		held.forEach(LockHandle::close);
		assertThat(granted.await(SLACK.toSeconds(), TimeUnit.SECONDS)).isTrue();
		done.countDown();
	}

	@Test
	default void aHolderThatStopsGivesItsPermitBackWhenItsLeaseEndsAndOneThatRunsKeepsIt() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		// Never released: a fixed lease, as a holder whose JVM died.
		node.lock(LockRequest.permit("report", 2).reentrant(false).leaseTime(Duration.ofMillis(800)));
		try (LockHandle running = node.lock(LockRequest.permit("report", 2).reentrant(false))) {
			long started = System.nanoTime();
			try (LockHandle next = otherNode.lock(LockRequest.permit("report", 2).waitTime(SLACK.plusSeconds(5)))) {
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(SLACK);
				assertThat(next.fencingToken()).isGreaterThan(running.fencingToken());
			}
			// The watchdog renews the running holder past its first lease.
			Thread.sleep(locks().template().options().watchdogLease().toMillis() + 500);
			assertThat(running.isHeld()).isTrue();
			assertThat(otherNode.tryLock(LockRequest.permit("report", 1).waitTime(Duration.ZERO))).isEmpty();
		}
	}

	@Test
	default void aHolderWhosePermitRedisLostIsToldWhenItReleases() {
		LockTemplate node = locks().template();
		LockHandle permit = node.lock(LockRequest.permit("upload", 2));
		locks().cli("upload").command("DEL", permitsKey("upload"));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(permit::close);
	}

	@Test
	default void aLoweredLimitLetsTheHoldersFinishAndAdmitsNobodyUntilFewerHold() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		LockHandle first = node.lock(LockRequest.permit("sync", 3).reentrant(false));
		LockHandle second = node.lock(LockRequest.permit("sync", 3).reentrant(false));
		assertThat(otherNode.tryLock(LockRequest.permit("sync", 2).waitTime(Duration.ZERO))).isEmpty();
		assertThat(first.isHeld()).isTrue();
		assertThat(second.isHeld()).isTrue();
		first.close();
		Optional<LockHandle> admitted = otherNode.tryLock(LockRequest.permit("sync", 2).waitTime(Duration.ZERO));
		assertThat(admitted).isPresent();
		admitted.get().close();
		second.close();
	}

	@Test
	default void aRaisedLimitAdmitsAtOnceWhileRequestsWithTheOldLimitWaitUnderIt() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		List<LockHandle> held = new ArrayList<>();
		held.add(node.lock(LockRequest.permit("crawl", 2).reentrant(false)));
		held.add(node.lock(LockRequest.permit("crawl", 2).reentrant(false)));
		Future<Long> waiter = executor().submit(() -> {
			try (LockHandle permit = otherNode.lock(LockRequest.permit("crawl", 2).waitTime(Duration.ofSeconds(30)))) {
				return permit.fencingToken();
			}
		});
		await().atMost(SLACK).until(() -> locks().diagnostics(otherNode).sleepingWaiterCount() == 1);
		// An instance deployed with a limit of 4 gets in at once; the waiter of the old
		// limit, woken as the grant left permits free, stays out while 2 or more hold.
		held.add(node.lock(LockRequest.permit("crawl", 4).reentrant(false).waitTime(Duration.ZERO)));
		held.add(node.lock(LockRequest.permit("crawl", 4).reentrant(false).waitTime(Duration.ZERO)));
		assertThat(node.tryLock(LockRequest.permit("crawl", 4).waitTime(Duration.ZERO))).isEmpty();
		await().atMost(SLACK).until(() -> locks().diagnostics(otherNode).sleepingWaiterCount() == 1);
		assertThat(waiter).isNotDone();
		held.remove(0).close();
		held.remove(0).close();
		assertThat(waiter).isNotDone();
		held.remove(0).close();
		assertThat(waiter.get(SLACK.toSeconds(), TimeUnit.SECONDS)).isPositive();
		held.forEach(LockHandle::close);
	}

	@Test
	default void aThreadReentersItsPermitUnlessItAsksForAnotherOne() {
		LockTemplate node = locks().template();
		try (LockHandle outer = node.lock(LockRequest.permit("tenant", 2));
				LockHandle inner = node.lock(LockRequest.permit("tenant", 2).waitTime(Duration.ZERO))) {
			assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			assertThat(locks().cli("tenant").command("HLEN", permitsKey("tenant"))).isEqualTo(1L);
			try (LockHandle another = node
				.lock(LockRequest.permit("tenant", 2).reentrant(false).waitTime(Duration.ZERO))) {
				assertThat(another.fencingToken()).isGreaterThan(outer.fencingToken());
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> node
					.lock(LockRequest.permit("tenant", 2).reentrant(false).waitTime(Duration.ofMillis(200))));
			}
		}
	}

}
