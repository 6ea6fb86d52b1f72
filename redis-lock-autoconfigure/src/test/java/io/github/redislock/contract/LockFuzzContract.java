package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * The fuzz test: threads of two nodes increment counters in Redis under the lock with
 * {@link LockFuzzer}, on one hot lock and over locks on every primary. The totals are
 * exact, no two sections of a lock overlap, and fencing tokens increase in the order the
 * lock was held.
 */
interface LockFuzzContract extends LockContract {

	/** Threads of a run, split over two nodes. */
	int THREADS = 16;

	/** Iterations per thread on one lock: most grants pass between local threads. */
	int ONE_LOCK_ITERATIONS = 300;

	/** Iterations per thread over several locks: more grants go through Redis. */
	int SEVERAL_LOCKS_ITERATIONS = 100;

	/** How long a thread may wait for the lock: far beyond any fair share of a run. */
	Duration FUZZ_WAIT_TIME = Duration.ofSeconds(15);

	/** How long a whole run may take. */
	Duration RUN_LIMIT = Duration.ofSeconds(30);

	@Test
	default void threadsOnTwoNodesNeverOverlapAndLoseNoIncrement() {
		List<LockTemplate> nodes = fuzzNodes();
		List<StringRedisTemplate> data = List.of(locks().data(), locks().data());
		LockFuzzer fuzzer = new LockFuzzer();
		fuzzer.run(THREADS, RUN_LIMIT, (thread, random) -> {
			LockTemplate node = nodes.get(thread % nodes.size());
			for (int i = 0; i < ONE_LOCK_ITERATIONS; i++) {
				try (LockHandle handle = node.lock("counter")) {
					fuzzer.increment("counter", node, handle, data.get(thread % data.size()), random);
				}
			}
		});
		int total = THREADS * ONE_LOCK_ITERATIONS;
		CriticalSections sections = fuzzer.sections();
		fuzzer.verify(() -> assertSoftly((softly) -> {
			softly.assertThat(data.get(0).opsForValue().get(LockFuzzer.counterKey("counter")))
				.isEqualTo(Integer.toString(total));
			softly.assertThat(sections.maxInside("counter"))
				.as("threads inside the critical section at once")
				.isEqualTo(1);
			softly.assertThat(sections.entries("counter")).isEqualTo(total);
			softly.assertThat(sections.nodeChanges("counter"))
				.as("times the lock passed from one node to the other")
				.isGreaterThan(2);
			softly.assertThat(sections.overlaps(true)).isEmpty();
			softly.assertThat(sections.tokenInversions(true)).isEmpty();
		}));
		assertNothingHeld(nodes);
	}

	/**
	 * Threads on two nodes over locks on every primary, each lock taken in turn by both
	 * nodes, lose no increment and never run two sections of one lock at once.
	 */
	@Test
	default void threadsOverSeveralLocksKeepEachLocksCounterExact() {
		List<LockTemplate> nodes = fuzzNodes();
		List<StringRedisTemplate> data = List.of(locks().data(), locks().data());
		List<String> names = locks().names("counter", 4);
		LockFuzzer fuzzer = new LockFuzzer();
		fuzzer.run(THREADS, RUN_LIMIT, (thread, random) -> {
			LockTemplate node = nodes.get(thread % nodes.size());
			for (int i = 0; i < SEVERAL_LOCKS_ITERATIONS; i++) {
				String name = names.get(random.nextInt(names.size()));
				try (LockHandle handle = node.lock(name)) {
					fuzzer.increment(name, node, handle, data.get(thread % data.size()), random);
				}
			}
		});
		CriticalSections sections = fuzzer.sections();
		fuzzer.verify(() -> assertSoftly((softly) -> {
			long total = 0;
			for (String name : names) {
				softly.assertThat(data.get(0).opsForValue().get(LockFuzzer.counterKey(name)))
					.as("counter of %s", name)
					.isEqualTo(Long.toString(sections.entries(name)));
				softly.assertThat(sections.maxInside(name)).as("threads inside %s at once", name).isEqualTo(1);
				softly.assertThat(sections.nodeChanges(name))
					.as("times %s passed from one node to the other", name)
					.isPositive();
				total += sections.entries(name);
			}
			softly.assertThat(total).isEqualTo(THREADS * SEVERAL_LOCKS_ITERATIONS);
			softly.assertThat(sections.overlaps(true)).isEmpty();
			softly.assertThat(sections.tokenInversions(true)).isEmpty();
			softly.assertThat(sections.lostCount()).isZero();
		}));
		assertNothingHeld(nodes);
	}

	@Test
	default void fencingTokensIncreaseFromEachHolderToTheNext() {
		List<LockTemplate> nodes = fuzzNodes();
		List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
		LockFuzzer fuzzer = new LockFuzzer();
		fuzzer.run(THREADS, RUN_LIMIT, (thread, random) -> {
			LockTemplate node = nodes.get(thread % nodes.size());
			for (int i = 0; i < SEVERAL_LOCKS_ITERATIONS; i++) {
				try (LockHandle handle = node.lock("tokens")) {
					// Appended in the order the lock was held, if it excludes.
					tokens.add(handle.fencingToken());
					Thread.yield();
				}
			}
		});
		fuzzer.verify(() -> assertThat(tokens).hasSize(THREADS * SEVERAL_LOCKS_ITERATIONS)
			.isSorted()
			.doesNotHaveDuplicates());
		assertNothingHeld(nodes);
	}

	private List<LockTemplate> fuzzNodes() {
		LockOptions options = LockOptions.defaults().withWaitTime(FUZZ_WAIT_TIME);
		return List.of(locks().template(options), locks().template(options));
	}

	private void assertNothingHeld(List<LockTemplate> nodes) {
		for (LockTemplate node : nodes) {
			assertThat(locks().diagnostics(node).heldCount()).isZero();
			assertThat(locks().diagnostics(node).renewedCount()).isZero();
		}
		assertThat(LockKeyValues.keysLessTombstones(locks(), "redis-lock:{*}")).isEmpty();
	}

}
