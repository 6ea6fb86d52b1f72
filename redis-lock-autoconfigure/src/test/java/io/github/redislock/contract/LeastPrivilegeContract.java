package io.github.redislock.contract;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock run by the least-privileged Redis user that {@code docs/operations.md}
 * recommends ({@link LeastPrivilegedUser}), limited to the lock's keys and channels with
 * {@code +@all -@dangerous +info}: every lock kind is granted and excludes, a waiter is
 * woken by another node's release message, leases are renewed and extended, and fencing
 * tokens increase, on every primary. Redis refuses the user nothing but the engine's
 * eviction-policy check ({@code CONFIG GET}), which it does without.
 */
interface LeastPrivilegeContract extends LockContract {

	/** A wait far longer than any test should take, and shorter than a 30 s lease. */
	Duration PRIVILEGE_WAIT = Duration.ofSeconds(20);

	@Test
	default void leastPrivilegedUserIsGrantedEveryKindWhichExcludesAndCarriesAGreaterToken() {
		LeastPrivilegedUser user = LeastPrivilegedUser.createOn(locks());
		LockTemplate node = user.template(LockOptions.defaults());
		LockTemplate otherNode = user.template(LockOptions.defaults());
		for (String name : locks().names("least-privilege", 1)) {
			for (LockRequest request : LeastPrivilegedUser.everyKind(name)) {
				long first;
				try (LockHandle held = node.lock(request)) {
					first = held.fencingToken();
					assertThat(otherNode.tryLock(LeastPrivilegedUser.conflicting(request).waitTime(Duration.ZERO)))
						.as(request.toString())
						.isEmpty();
				}
				try (LockHandle next = otherNode.lock(request)) {
					assertThat(next.fencingToken()).as(request.toString()).isGreaterThan(first);
				}
			}
			try (LockHandle read = node.readLock(name + ":read");
					LockHandle shared = otherNode.lock(LockRequest.read(name + ":read").waitTime(Duration.ZERO))) {
				assertThat(shared.isHeld()).isTrue();
			}
		}
		user.assertNothingButConfigWasRefused();
	}

	/**
	 * A waiter of every kind sleeps on its lock's release channel and is woken by the
	 * other node's release: it gets the lock long before the holder's 30 s lease would
	 * have ended, within its 20 s wait.
	 */
	@Test
	default void leastPrivilegedWaiterIsWokenByAnotherNodesRelease() throws Exception {
		LeastPrivilegedUser user = LeastPrivilegedUser.createOn(locks());
		LockTemplate holder = user.template(LockOptions.defaults());
		LockTemplate waiter = user.template(LockOptions.defaults());
		for (String name : locks().names("least-privilege", 1)) {
			for (LockRequest request : LeastPrivilegedUser.everyKind(name)) {
				LockHandle held = holder.lock(LeastPrivilegedUser.conflicting(request));
				CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> {
					try (LockHandle granted = waiter.lock(request.waitTime(PRIVILEGE_WAIT))) {
						return granted.fencingToken();
					}
				}, executor());
				await().atMost(PRIVILEGE_WAIT)
					.until(() -> locks().diagnostics(waiter).sleepingWaiterCount() == 1 || waiting.isDone());
				assertThat(waiting).as(request.toString()).isNotDone();
				held.close();
				assertThat(waiting.get(PRIVILEGE_WAIT.toSeconds(), TimeUnit.SECONDS)).as(request.toString())
					.isGreaterThan(held.fencingToken());
			}
		}
		user.assertNothingButConfigWasRefused();
	}

	/**
	 * The watchdog renews a lease of every kind past its first end, and an extension sets
	 * a fixed lease from now.
	 */
	@Test
	default void leastPrivilegedLeasesOfEveryKindAreRenewedAndExtended() {
		LeastPrivilegedUser user = LeastPrivilegedUser.createOn(locks());
		Duration lease = Duration.ofSeconds(2);
		CountingObserver observer = new CountingObserver();
		LockTemplate renewed = locks().template(new RedisLockEngine(user.connectionFactory(),
				LockOptions.defaults().withWatchdog(lease, Duration.ofMillis(500)), observer));
		LockTemplate fixed = user.template(LockOptions.defaults());
		for (String name : locks().names("least-privilege", 1)) {
			List<LockRequest> requests = LeastPrivilegedUser.everyKind(name);
			List<LockHandle> handles = requests.stream().map(renewed::lock).toList();
			await().atMost(lease.plus(SLACK))
				.until(() -> requests.stream().allMatch((request) -> observer.renewals(request.key()) >= 2));
			handles.forEach(LockHandle::close);
			for (LockRequest request : requests) {
				assertThat(observer.losses(request.key())).as(request.key()).isZero();
				try (LockHandle handle = fixed.lock(request.leaseTime(lease))) {
					handle.extend(Duration.ofMinutes(1));
					assertThat(renewed.remainingLease(request.key())).as(request.key())
						.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofSeconds(30)));
				}
			}
		}
		user.assertNothingButConfigWasRefused();
	}

}
