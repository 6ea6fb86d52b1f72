package io.github.redislock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;

import io.github.redislock.LockHandle;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.annotation.ConcurrentServicesConfiguration.CounterService;
import io.github.redislock.annotation.FailureServicesConfiguration.FailureService;
import io.github.redislock.annotation.NestedServicesConfiguration.AsyncService;
import io.github.redislock.annotation.NestedServicesConfiguration.OuterService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests of how {@link io.github.redislock.DistributedLock @DistributedLock} methods run:
 * mutual exclusion, release on failure, failure strategies, nesting, re-entry and
 * asynchronous results.
 */
@LockedServicesTest
class DistributedLockInterceptionTests {

	private static final int THREADS = 16;

	private static final int CALLS_PER_THREAD = 10;

	@Autowired
	private CounterService counter;

	@Autowired
	private FailureService failures;

	@Autowired
	private OuterService outer;

	@Autowired
	private AsyncService async;

	@Autowired
	private LockProbe probe;

	@BeforeEach
	void reset() {
		this.probe.flush();
		this.probe.lastSeen = null;
		this.failures.resetRuns();
		this.outer.heldAfterInner().clear();
	}

	@Test
	void concurrentCallsNeverOverlap() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				calls.add(executor.submit(() -> {
					start.await();
					for (int j = 0; j < CALLS_PER_THREAD; j++) {
						this.counter.increment();
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> call : calls) {
				call.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(this.counter.overlaps()).isZero();
		assertThat(this.counter.count()).isEqualTo(THREADS * CALLS_PER_THREAD);
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void exceptionReachesCallerUnchangedAndReleasesLock() {
		IllegalStateException failure = new IllegalStateException("boom");
		assertThatIllegalStateException().isThrownBy(() -> this.failures.failing(3, failure)).isSameAs(failure);
		assertThat(failure.getSuppressed()).isEmpty();
		assertThat(this.probe.lastSeen).containsExactly("fail:3");
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void lockHeldElsewhereThrowsByDefault() {
		try (LockHandle held = this.probe.holdElsewhere("report:1")) {
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> this.failures.throwing(1))
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("report:1"));
		}
		assertThat(this.failures.runs()).isZero();
		assertThat(this.failures.throwing(1)).isEqualTo("ran");
	}

	@Test
	void waitTimeResolvesPlaceholders() {
		try (LockHandle held = this.probe.holdElsewhere("report:1")) {
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> this.failures.placeholderWait(1))
				.satisfies((ex) -> assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(200)));
		}
	}

	@Test
	void skipReturnsNullWithoutRunning() {
		try (LockHandle held = this.probe.holdElsewhere("report:2")) {
			assertThat(this.failures.skipping(2)).isNull();
			assertThat(this.failures.skippingOptional(2)).isEmpty();
		}
		assertThat(this.failures.runs()).isZero();
		assertThat(this.failures.skipping(2)).isEqualTo("ran");
	}

	@Test
	void fallbackIsCalledWithSameArguments() {
		try (LockHandle held = this.probe.holdElsewhere("report:3")) {
			assertThat(this.failures.withFallback(3)).isEqualTo("fallback for 3");
		}
		assertThat(this.failures.runs()).isZero();
		assertThat(this.failures.withFallback(3)).isEqualTo("ran");
	}

	@Test
	void differentLocksNestOnOneThread() {
		this.outer.nested();
		assertThat(this.probe.lastSeen).containsExactlyInAnyOrder("outer", "inner");
		assertThat(this.outer.heldAfterInner()).containsExactly(Set.of("outer"));
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void sameLockIsReenteredOnOneThread() {
		// The inner method waits 0: it would be skipped by a timeout if re-entry failed.
		this.outer.reentrant();
		assertThat(this.probe.lastSeen).containsExactly("shared");
		assertThat(this.outer.heldAfterInner()).containsExactly(Set.of("shared"));
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void selfInvocationIsNotIntercepted() {
		this.outer.callsItself();
		assertThat(this.outer.heldAfterInner()).containsExactly(Set.of("self"));
	}

	@Test
	void beansAreClassBasedProxiesByDefault() {
		assertThat(AopUtils.isCglibProxy(this.counter)).isTrue();
	}

	@Test
	void completableFutureHoldsLockUntilItCompletes() {
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = this.async.start("7", work);
		assertThat(result).isNotSameAs(work).isNotDone();
		assertThat(this.probe.held()).containsExactly("job:7");
		assertThat(this.probe.isFreeForOthers("job:7")).isFalse();
		CompletableFuture<Set<String>> heldWhenCallerSeesCompletion = result.thenApply((value) -> this.probe.held());
		// Completed on another thread, which releases the lock.
		CompletableFuture.runAsync(() -> work.complete("done")).join();
		assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
		assertThat(heldWhenCallerSeesCompletion.join()).isEmpty();
		assertThat(this.probe.isFreeForOthers("job:7")).isTrue();
	}

	@Test
	void completableFutureFailureIsPassedOnAndReleasesLock() {
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = this.async.start("8", work);
		IllegalStateException failure = new IllegalStateException("job failed");
		work.completeExceptionally(failure);
		assertThat(result).failsWithin(Duration.ofSeconds(5)).withThrowableThat().havingCause().isSameAs(failure);
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void completableFutureMethodThrowingSynchronouslyReleasesLock() {
		assertThatIllegalStateException().isThrownBy(() -> this.async.failToStart("9")).withMessage("no executor");
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void skippedCompletableFutureIsCompletedWithEmptyOptional() {
		CompletableFuture<Optional<String>> work = new CompletableFuture<>();
		CompletableFuture<Optional<String>> first = this.async.startOrSkip("10", work);
		CompletableFuture<Optional<String>> second = CompletableFuture
			.supplyAsync(() -> this.async.startOrSkip("10", new CompletableFuture<>()))
			.join();
		assertThat(second).isCompletedWithValue(Optional.empty());
		work.complete(Optional.of("done"));
		assertThat(first).isCompletedWithValue(Optional.of("done"));
		await().untilAsserted(() -> assertThat(this.probe.held()).isEmpty());
	}

	@Test
	void callingThreadDoesNotReenterALockHeldForItsPendingFuture() {
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> first = this.async.start("11", work);
		CompletableFuture<Optional<String>> second = this.async.startOrSkip("11", new CompletableFuture<>());
		assertThat(second).isCompletedWithValue(Optional.empty());
		work.complete("done");
		assertThat(first).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
		await().untilAsserted(() -> assertThat(this.probe.held()).isEmpty());
	}

}
