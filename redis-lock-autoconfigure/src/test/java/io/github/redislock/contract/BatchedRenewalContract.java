package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The watchdog renews many leases with one script call per chunk of them (of one slot on
 * a cluster), not one per lease, and each lease of a chunk still has its own outcome: the
 * held ones are renewed, the ones taken over or expired in Redis are lost. What is
 * asserted is the chunking, leases renewed per call, never how fast: that is for the
 * benchmarks. Lock names come from {@link LockFixture#namesRenewedTogether}: any names on
 * one server, names of a few slots on a cluster (names in different slots cannot share a
 * call).
 */
interface BatchedRenewalContract extends LockContract {

	/** Many held locks: 50 chunks of 100, against 5,000 calls a renewal each. */
	int MANY = 5000;

	/**
	 * Leases renewed per call at least, on average, for a run to count as batched: a
	 * quarter of a chunk, since leases falling due apart make smaller ones.
	 */
	int BATCHED = 25;

	/**
	 * The lease of these tests' locks: long enough that thousands of renewals every
	 * {@link #RENEW_INTERVAL} keep it on a busy machine of two cores.
	 */
	Duration LEASE = Duration.ofMillis(5000);

	/** Short enough for several renewals within a test. */
	Duration RENEW_INTERVAL = Duration.ofMillis(1250);

	/** What a busy machine may add to a renewal's time. */
	Duration RENEWAL_MARGIN = Duration.ofSeconds(2);

	@Test
	default void manyHeldLocksAreRenewedInChunksAndNoneIsLost() throws Exception {
		CountingObserver observer = new CountingObserver();
		LockTemplate template = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL), observer);
		List<String> names = locks().namesRenewedTogether("held", MANY);
		List<LockHandle> handles = acquireAll(template, names);
		Map<String, Long> before = locks().commandCalls();
		long renewalsBefore = renewals(observer, names);
		// Past a whole lease: a lock not renewed in Redis would have expired by then.
		Duration held = LEASE.plus(RENEW_INTERVAL);
		await().during(held)
			.atMost(held.plus(RENEWAL_MARGIN))
			.pollInterval(Duration.ofMillis(250))
			.until(() -> handles.stream().allMatch(LockHandle::isHeld));
		long calls = CommandStats.scriptCalls(locks().commandCalls()) - CommandStats.scriptCalls(before);
		long renewed = renewals(observer, names) - renewalsBefore;
		StringRedisTemplate data = locks().data();
		for (int i = 0; i < names.size(); i++) {
			String name = names.get(i);
			assertThat(observer.renewals(name)).as("renewals of " + name).isGreaterThanOrEqualTo(3);
			assertThat(observer.losses(name)).as("losses of " + name).isZero();
			if (i % 10 == 0) {
				// A sample, a round trip each: held in Redis too, within a lease.
				assertThat(data.getExpire(LockFixture.lockKey(name), TimeUnit.MILLISECONDS)).as(name)
					.isBetween(1L, LEASE.toMillis());
			}
		}
		assertThat(renewed).as("leases renewed while held").isGreaterThanOrEqualTo(MANY);
		assertThat(renewed).as("leases renewed by " + calls + " calls").isGreaterThanOrEqualTo(calls * BATCHED);
		template.shutdown(Duration.ZERO);
	}

	@Test
	default void aChunkOfOwnedAndStolenLocksRenewsTheOwnedAndLosesTheStolen() throws Exception {
		CountingObserver observer = new CountingObserver();
		LockTemplate template = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL), observer);
		List<String> names = locks().namesRenewedTogether("mixed", 90);
		List<LockHandle> handles = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			handles.add(template.lock(request(names.get(i), i)));
		}
		StringRedisTemplate data = locks().data();
		// A third of the locks of each kind taken away in Redis: exclusive ones taken
		// over by another owner, with no expiry (one overwritten by a hash); fair ones
		// expired; readers' leases ended.
		Set<String> stolen = new HashSet<>();
		for (int i = 0; i < names.size(); i++) {
			String name = names.get(i);
			if (i % 9 >= 3) {
				continue;
			}
			stolen.add(name);
			switch (i % 9) {
				case 0 -> {
					if (i == 0) {
						// Something else written at the key, of another type: Redis
						// refuses to read it as a lock, which loses this lease alone.
						data.delete(LockFixture.lockKey(name));
						data.opsForHash().put(LockFixture.lockKey(name), "not", "a lock");
					}
					else {
						data.opsForValue().set(LockFixture.lockKey(name), "thief:" + i);
					}
				}
				case 1 -> data.delete(LockFixture.lockKey(name));
				default -> {
					String holders = readWriteKey(name);
					String owner = data.<String, String>opsForHash()
						.keys(holders)
						.stream()
						.filter((field) -> !field.equals("mode"))
						.findFirst()
						.orElseThrow();
					data.opsForHash().put(holders, owner, "1");
				}
			}
		}
		Map<String, Long> before = locks().commandCalls();
		long renewalsBefore = renewals(observer, names);
		await().atMost(RENEW_INTERVAL.multipliedBy(2).plus(RENEWAL_MARGIN))
			.until(() -> stolen.stream().allMatch((name) -> observer.losses(name) == 1));
		Duration held = LEASE.plus(RENEW_INTERVAL);
		await().during(held).atMost(held.plus(RENEWAL_MARGIN)).until(() -> {
			for (int i = 0; i < names.size(); i++) {
				if (handles.get(i).isHeld() == stolen.contains(names.get(i))) {
					return false;
				}
			}
			return true;
		});
		long calls = CommandStats.scriptCalls(locks().commandCalls()) - CommandStats.scriptCalls(before);
		long renewed = renewals(observer, names) - renewalsBefore;
		for (int i = 0; i < names.size(); i++) {
			String name = names.get(i);
			if (stolen.contains(name)) {
				assertThat(observer.losses(name)).as("losses of " + name).isEqualTo(1);
				if (i % 9 == 0 && i > 0) {
					// Not extended: the renewal checked the owner, key by key.
					assertThat(data.opsForValue().get(LockFixture.lockKey(name))).isEqualTo("thief:" + i);
					assertThat(data.getExpire(LockFixture.lockKey(name), TimeUnit.MILLISECONDS)).isEqualTo(-1L);
				}
			}
			else {
				assertThat(observer.losses(name)).as("losses of " + name).isZero();
				assertThat(observer.renewals(name)).as("renewals of " + name).isGreaterThanOrEqualTo(4);
			}
		}
		// 60 leases renewed a few calls at a time, not a call each: leases of three kinds
		// and lost ones share a chunk.
		assertThat(renewed).as("leases renewed while held").isGreaterThanOrEqualTo(60);
		assertThat(renewed).as("leases renewed by " + calls + " calls").isGreaterThanOrEqualTo(calls * 5);
		template.shutdown(Duration.ZERO);
	}

	/** Renewals the observer was told of, of all the given locks. */
	private static long renewals(CountingObserver observer, List<String> names) {
		return names.stream().mapToLong(observer::renewals).sum();
	}

	/** Exclusive, fair and read locks in turn. */
	private static LockRequest request(String name, int i) {
		return switch (i % 3) {
			case 0 -> LockRequest.of(name);
			case 1 -> LockRequest.of(name).fair(true);
			default -> LockRequest.read(name);
		};
	}

	private static String readWriteKey(String name) {
		return LockFixture.lockKey(name) + ":rw";
	}

	/** Acquires the locks from 16 threads of the test's executor. */
	private List<LockHandle> acquireAll(LockTemplate template, List<String> names) throws Exception {
		List<Future<List<LockHandle>>> acquiring = new ArrayList<>();
		int threads = 16;
		for (int thread = 0; thread < threads; thread++) {
			int first = thread;
			acquiring.add(executor().submit(() -> {
				List<LockHandle> acquired = new ArrayList<>();
				for (int i = first; i < names.size(); i += threads) {
					acquired.add(template.lock(names.get(i)));
				}
				return acquired;
			}));
		}
		List<LockHandle> handles = new ArrayList<>();
		for (Future<List<LockHandle>> future : acquiring) {
			handles.addAll(future.get(60, TimeUnit.SECONDS));
		}
		return handles;
	}

}
