package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.CriticalSections;
import io.github.redislock.contract.CriticalSections.Section;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReactiveLockTemplate} on a real Redis: the lock is taken on subscription and
 * released at the end, whatever the end; cancelling at any stage leaves nothing locked;
 * waits time out, lost locks fail the result, and reentrancy follows the chain, not the
 * thread. Each node is an engine with a blocking and a reactive template on it.
 */
class ReactiveLockTemplateTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration LONG_WAIT = Duration.ofSeconds(20);

	/**
	 * How long a critical section keeps the counter it read before writing it back, the
	 * reactive one across an asynchronous boundary: holders that overlap lose increments
	 * and are seen inside together.
	 */
	private static final Duration SECTION_WIDTH = Duration.ofMillis(1);

	private StandaloneLocks locks;

	private RedisCli cli;

	private LockTemplate blocking;

	private ReactiveLockTemplate reactive;

	private final ExecutorService executor = LockFixture.executor("reactive-lock-tests");

	private final Scheduler scheduler = Schedulers.newParallel("reactive-lock-tests", 4);

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.cli = this.locks.cli();
		RedisLockEngine engine = new RedisLockEngine(this.locks.connectionFactory(), LockOptions.defaults());
		this.blocking = this.locks.template(engine);
		this.reactive = new ReactiveLockTemplate(engine);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.scheduler.dispose();
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void executeHoldsTheLockWhileTheActionRunsAndEmitsItsValueOnceReleased() {
		Mono<String> action = Mono.fromCallable(() -> this.cli.get("redis-lock:{report}"))
			.map((owner) -> "held by " + owner);
		String result = this.reactive.execute("report", action).block(LONG_WAIT);
		assertThat(result).startsWith("held by ").doesNotEndWith("null");
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{report}")).isNull();
	}

	@Test
	void executeManyPassesEveryElementOnAndReleasesAtTheEnd() {
		List<Integer> elements = this.reactive
			.executeMany("feed", Flux.range(1, 5).doOnNext((i) -> assertThat(this.blocking.isLocked("feed")).isTrue()))
			.collectList()
			.block(LONG_WAIT);
		assertThat(elements).containsExactly(1, 2, 3, 4, 5);
		assertThat(this.blocking.isLocked("feed")).isFalse();
	}

	@Test
	void actionIsNotSubscribedBeforeTheLockIsGranted() {
		AtomicBoolean ran = new AtomicBoolean();
		try (LockHandle held = this.blocking.lock("order:1")) {
			CompletableFuture<Boolean> result = this.reactive
				.execute(LockRequest.of("order:1").waitTime(LONG_WAIT), Mono.fromCallable(() -> ran.getAndSet(true)))
				.toFuture();
			awaitWaiters(1);
			assertThat(ran).isFalse();
			assertThat(result).isNotDone();
		}
		await().untilTrue(ran);
	}

	@Test
	void failingActionReleasesTheLockAndItsErrorReachesTheSubscriber() {
		Mono<String> failing = Mono.error(new IllegalStateException("boom"));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.reactive.execute("order:2", failing).block(LONG_WAIT))
			.withMessage("boom");
		assertThat(this.blocking.isLocked("order:2")).isFalse();
	}

	@Test
	void waitThatRunsOutEndsWithLockTimeoutException() {
		try (LockHandle held = this.blocking.lock("order:3")) {
			Mono<String> result = this.reactive.execute(LockRequest.of("order:3").waitTime(Duration.ofMillis(200)),
					Mono.just("never"));
			assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> result.block(LONG_WAIT))
				.withMessageContaining("order:3");
			assertThat(held.isHeld()).isTrue();
		}
		awaitWaiters(0);
	}

	@Test
	void zeroWaitMakesOneAttempt() {
		try (LockHandle held = this.blocking.lock("order:4")) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> this.reactive.execute(LockRequest.of("order:4").waitTime(Duration.ZERO), Mono.just(1))
					.block(LONG_WAIT));
		}
		assertThat(
				this.reactive.execute(LockRequest.of("order:4").waitTime(Duration.ZERO), Mono.just(1)).block(LONG_WAIT))
			.isEqualTo(1);
	}

	@Test
	void cancelBeforeTheGrantLeavesNothingLocked() {
		for (int i = 0; i < 50; i++) {
			this.reactive.execute("cancelled:" + i, Mono.never()).subscribe().dispose();
		}
		await().untilAsserted(() -> assertThat(this.cli.keys("redis-lock:{cancelled:*}"))
			.allSatisfy((key) -> assertThat(LockKeyValues.holder(this.cli, key)).as(key).isNull()));
		assertThat(this.locks.diagnostics(this.blocking).heldCount()).isZero();
	}

	@Test
	void cancelWhileWaitingWithdrawsTheWaiterAndRunsNothing() {
		AtomicBoolean ran = new AtomicBoolean();
		LockHandle held = this.blocking.lock("order:5");
		Disposable waiting = this.reactive
			.execute(LockRequest.of("order:5").waitTime(LONG_WAIT), Mono.fromRunnable(() -> ran.set(true)))
			.subscribe();
		awaitWaiters(1);
		waiting.dispose();
		awaitWaiters(0);
		held.close();
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{order:5}")).isNull();
		assertThat(ran).isFalse();
		assertThat(this.locks.diagnostics(this.blocking).heldCount()).isZero();
	}

	@Test
	void cancelWhileRunningReleasesTheLock() {
		AtomicBoolean running = new AtomicBoolean();
		Disposable subscription = this.reactive.execute("order:6", Mono.never().doOnSubscribe((s) -> running.set(true)))
			.subscribe();
		await().untilTrue(running);
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{order:6}")).isNotNull();
		subscription.dispose();
		await().untilAsserted(() -> assertThat(LockKeyValues.holder(this.cli, "redis-lock:{order:6}")).isNull());
		assertThat(this.locks.diagnostics(this.blocking).heldCount()).isZero();
	}

	@Test
	void cancelledFairWaiterLeavesTheQueue() {
		LockHandle held = this.blocking.lock(LockRequest.of("ledger").fair(true));
		Disposable waiting = this.reactive
			.execute(LockRequest.of("ledger").fair(true).waitTime(LONG_WAIT), Mono.just(1))
			.subscribe();
		await().untilAsserted(
				() -> assertThat(this.cli.command("ZCARD", "redis-lock:{ledger}:queue:deadlines")).isEqualTo(1L));
		waiting.dispose();
		await().untilAsserted(
				() -> assertThat(this.cli.command("ZCARD", "redis-lock:{ledger}:queue:deadlines")).isEqualTo(0L));
		held.close();
		assertThat(this.cli.keys("redis-lock:{ledger}*")).doesNotContain("redis-lock:{ledger}");
	}

	@Test
	void lockLostWhileTheActionRanFailsTheResult() {
		LockRequest shortLease = LockRequest.of("order:7").leaseTime(Duration.ofMillis(300));
		Mono<String> slow = Mono.delay(Duration.ofMillis(600)).thenReturn("unprotected");
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.reactive.execute(shortLease, slow).block(LONG_WAIT))
			.withMessageContaining("order:7");
	}

	@Test
	void lockDeletedInRedisEndsTheFluxWithLockLostException() {
		// The watchdog renews every 100 ms, and finds the key gone once it is deleted.
		RedisLockEngine engine = new RedisLockEngine(this.locks.connectionFactory(),
				LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), Duration.ofMillis(100)));
		this.locks.template(engine);
		ReactiveLockTemplate renewing = new ReactiveLockTemplate(engine);
		List<Long> received = new ArrayList<>();
		Flux<Long> ticks = Flux.interval(Duration.ofMillis(20)).doOnNext((tick) -> {
			if (tick == 5) {
				this.cli.command("DEL", "redis-lock:{feed:2}");
			}
		});
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> renewing.executeMany("feed:2", ticks).doOnNext(received::add).blockLast(LONG_WAIT));
		assertThat(received).startsWith(0L, 1L, 2L, 3L, 4L, 5L);
	}

	@Test
	void watchdogRenewsTheLockOfALongAction() {
		CountingObserver observer = new CountingObserver();
		RedisLockEngine engine = new RedisLockEngine(this.locks.connectionFactory(),
				LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), Duration.ofMillis(200)), observer);
		this.locks.template(engine);
		Mono<Boolean> longAction = Mono.delay(Duration.ofMillis(1500))
			.then(ReactiveCurrentLock.handle())
			.map(LockHandle::isHeld);
		assertThat(new ReactiveLockTemplate(engine).execute("order:13", longAction).block(LONG_WAIT)).isTrue();
		assertThat(observer.renewals("order:13")).isGreaterThanOrEqualTo(3);
		assertThat(observer.losses("order:13")).isZero();
	}

	@Test
	void readLocksShareAndTheWriteLockExcludesThem() {
		CriticalSections sections = new CriticalSections();
		Mono<Integer> read = Mono.defer(() -> {
			Section section = sections.enterShared("catalog", this.reactive);
			return Mono.delay(Duration.ofMillis(100)).thenReturn(1).doOnTerminate(() -> sections.exit(section));
		});
		Mono<Integer> write = Mono.fromCallable(() -> {
			// Token 0: this test checks exclusion, not the order of tokens.
			Section section = sections.enter("catalog", this.reactive, 0);
			sections.exit(section);
			return 0;
		});
		LockRequest reader = LockRequest.read("catalog").waitTime(LONG_WAIT);
		LockRequest writer = LockRequest.write("catalog").waitTime(LONG_WAIT);
		List<Integer> results = Flux
			.merge(this.reactive.execute(reader, read), this.reactive.execute(reader, read),
					this.reactive.execute(writer, write), this.reactive.execute(reader, read))
			.collectList()
			.block(LONG_WAIT);
		assertThat(results).containsExactlyInAnyOrder(1, 1, 0, 1);
		assertThat(sections.maxInside("catalog")).isGreaterThan(1);
		assertThat(sections.overlaps(true)).as("the writer overlapping a reader").isEmpty();
	}

	@Test
	void fairWaitersAreServedOneAtATime() {
		CriticalSections sections = new CriticalSections();
		LockRequest fair = LockRequest.of("ledger:2").fair(true).waitTime(LONG_WAIT);
		int results = Flux.range(0, 50)
			.flatMap(
					(i) -> this.reactive.execute(fair, section(sections, "ledger:2", Mono.delay(Duration.ofMillis(1)))))
			.count()
			.block(LONG_WAIT)
			.intValue();
		assertThat(results).isEqualTo(50);
		assertThat(sections.maxInside("ledger:2")).isOne();
		assertThat(sections.tokenInversions(true)).isEmpty();
	}

	@Test
	void nestedExecutionOfTheSameKeyReentersWithoutARoundTrip() {
		AtomicInteger roundTrips = new AtomicInteger(-1);
		Mono<Long> inner = this.reactive.execute("order:8", ReactiveCurrentLock.fencingToken());
		Mono<List<Long>> outer = this.reactive.execute("order:8",
				ReactiveCurrentLock.fencingToken()
					.flatMap((outerToken) -> Mono.fromCallable(this.locks::roundTrips)
						.flatMap((before) -> inner.map((innerToken) -> List.of(outerToken, innerToken))
							.doOnNext((tokens) -> roundTrips.set((int) (this.locks.roundTrips() - before))))));
		List<Long> tokens = outer.block(LONG_WAIT);
		assertThat(tokens.get(1)).isEqualTo(tokens.get(0));
		assertThat(roundTrips).hasValue(0);
		assertThat(this.blocking.isLocked("order:8")).isFalse();
	}

	@Test
	void aPermitInsideTheWriteLockOfTheSameNameIsAPermitOfItsOwn() {
		Mono<Long> permitHolders = this.reactive.execute(LockRequest.permit("orders", 2),
				Mono.fromCallable(() -> this.cli.command("HLEN", "redis-lock:{orders}:permits")).cast(Long.class));
		Long holders = this.reactive.execute(LockRequest.write("orders"), permitHolders).block(LONG_WAIT);
		// Not a re-entry of the write lock: the permit is counted among the name's
		// permits.
		assertThat(holders).isOne();
	}

	@Test
	void nestedExecutionThatReenteredALostLockFails() {
		LockRequest shortLease = LockRequest.of("order:12").leaseTime(Duration.ofMillis(300));
		Mono<String> inner = this.reactive.execute("order:12",
				Mono.delay(Duration.ofMillis(600)).thenReturn("unprotected"));
		AtomicBoolean innerFailed = new AtomicBoolean();
		Mono<String> outer = this.reactive.execute(shortLease,
				inner.doOnError(LockLostException.class, (ex) -> innerFailed.set(true)));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> outer.block(LONG_WAIT));
		assertThat(innerFailed).isTrue();
	}

	@Test
	void unrelatedChainOnTheSameThreadWaits() {
		Mono<String> unrelated = this.reactive
			.execute(LockRequest.of("order:9").waitTime(Duration.ofMillis(200)), Mono.just("entered"))
			.onErrorResume((ex) -> Mono.just(ex.getClass().getSimpleName()))
			.contextWrite((context) -> Context.empty());
		String outcome = this.reactive.execute("order:9", unrelated).block(LONG_WAIT);
		assertThat(outcome).isEqualTo(LockTimeoutException.class.getSimpleName());
	}

	@Test
	void readerOfAChainCannotUpgrade() {
		Mono<String> upgrade = this.reactive.execute(LockRequest.write("catalog:2"), Mono.just("written"));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.reactive.execute(LockRequest.read("catalog:2"), upgrade).block(LONG_WAIT))
			.withMessageContaining("cannot upgrade");
		assertThat(this.blocking.isLocked("catalog:2")).isFalse();
	}

	@Test
	void currentLockFailsOutsideAnExecution() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> ReactiveCurrentLock.handle().block(LONG_WAIT))
			.withMessageContaining("No reactive lock execution");
		assertThat(ReactiveCurrentLock.handle(Context.empty())).isEmpty();
	}

	@Test
	void invalidArgumentsFailAtAssembly() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.reactive.execute(" ", Mono.just(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.reactive.execute("order:10", null))
			.withMessageContaining("order:10");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.reactive.executeMany((LockRequest) null, Flux.empty()));
	}

	@Test
	void blockingAndReactiveCallersOfTwoNodesNeverOverlap() throws Exception {
		RedisLockEngine otherEngine = new RedisLockEngine(this.locks.connectionFactory(), LockOptions.defaults());
		LockTemplate otherBlocking = this.locks.template(otherEngine);
		ReactiveLockTemplate otherReactive = new ReactiveLockTemplate(otherEngine);
		CriticalSections sections = new CriticalSections();
		LockRequest request = LockRequest.of("mixed").waitTime(LONG_WAIT);
		long[] counter = new long[1];
		List<CompletableFuture<?>> threads = new ArrayList<>();
		for (LockTemplate node : List.of(this.blocking, otherBlocking)) {
			for (int t = 0; t < 2; t++) {
				threads.add(CompletableFuture.runAsync(() -> {
					for (int i = 0; i < 50; i++) {
						node.run(request, () -> {
							Section section = sections.enter("mixed", node, CurrentLock.fencingToken());
							long read = counter[0];
							LockSupport.parkNanos(SECTION_WIDTH.toNanos());
							counter[0] = read + 1;
							sections.exit(section);
						});
					}
				}, this.executor));
			}
		}
		Mono<Long> increment = Mono.defer(() -> {
			long read = counter[0];
			return Mono.delay(SECTION_WIDTH).map((tick) -> counter[0] = read + 1);
		});
		Flux<Long> reactiveCallers = Flux.range(0, 400)
			.flatMap((i) -> ((i % 2 == 0) ? this.reactive : otherReactive).execute(request,
					section(sections, "mixed", increment)))
			.subscribeOn(this.scheduler);
		assertThat(reactiveCallers.count().block(LONG_WAIT)).isEqualTo(400);
		CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		assertThat(counter[0]).isEqualTo(600);
		assertThat(sections.maxInside("mixed")).isOne();
		assertThat(sections.overlaps(true)).isEmpty();
	}

	@Test
	void shutdownFailsPendingAcquisitions() {
		RedisLockEngine engine = new RedisLockEngine(this.locks.connectionFactory(), LockOptions.defaults());
		LockTemplate node = this.locks.template(engine);
		ReactiveLockTemplate reactiveNode = new ReactiveLockTemplate(engine);
		try (LockHandle held = this.blocking.lock("order:11")) {
			CompletableFuture<Integer> waiting = reactiveNode
				.execute(LockRequest.of("order:11").waitTime(LONG_WAIT), Mono.just(1))
				.toFuture();
			await().until(() -> this.locks.diagnostics(node).waiterCount() == 1);
			node.shutdown(Duration.ZERO);
			assertThat(waiting).failsWithin(LONG_WAIT)
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(LockShutdownException.class);
		}
	}

	/**
	 * Records the action's run as a critical section of the lock it runs under, ended as
	 * the action terminates, before the release that its termination starts.
	 */
	private static <T> Mono<T> section(CriticalSections sections, String key, Mono<T> action) {
		return ReactiveCurrentLock.fencingToken().flatMap((token) -> {
			Section section = sections.enter(key, Thread.currentThread(), token);
			return action.doOnTerminate(() -> sections.exit(section));
		});
	}

	@Test
	void severalLocksAreHeldTogetherAndReleasedAtTheEnd() {
		List<LockRequest> requests = List.of(LockRequest.of("account:1"), LockRequest.of("account:2"));
		Mono<List<String>> holders = Mono
			.fromCallable(() -> List.of(String.valueOf(LockKeyValues.holder(this.cli, "redis-lock:{account:1}")),
					String.valueOf(LockKeyValues.holder(this.cli, "redis-lock:{account:2}"))));
		assertThat(this.reactive.execute(requests, holders).block(LONG_WAIT)).doesNotContain("null");
		assertThat(this.reactive.executeMany(requests, holders.flux()).blockLast(LONG_WAIT)).doesNotContain("null");
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{account:1}")).isNull();
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{account:2}")).isNull();
	}

	@Test
	void severalLocksShareOneBudgetAndATimeoutGivesBackThoseTaken() {
		List<LockRequest> requests = List.of(LockRequest.of("account:3").waitTime(Duration.ofMillis(300)),
				LockRequest.of("account:4"));
		AtomicBoolean ran = new AtomicBoolean();
		try (LockHandle held = this.blocking.lock("account:4")) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(
						() -> this.reactive.execute(requests, Mono.fromRunnable(() -> ran.set(true))).block(LONG_WAIT))
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("account:4"))
				.satisfies((ex) -> assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(300)));
			assertThat(LockKeyValues.holder(this.cli, "redis-lock:{account:3}")).isNull();
		}
		assertThat(ran).isFalse();
	}

	@Test
	void severalLocksNeedValidRequests() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.reactive.execute(List.of(), Mono.just(1)))
			.withMessageContaining("at least one lock request");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.reactive.executeMany(Arrays.asList(LockRequest.of("a"), null), Flux.just(1)))
			.withMessageContaining("must not contain null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.reactive.execute(List.of(LockRequest.of("a")), (Mono<Integer>) null))
			.withMessageContaining("must not be null");
	}

	private void awaitWaiters(int count) {
		await().until(() -> this.locks.diagnostics(this.blocking).sleepingWaiterCount() == count
				&& this.locks.diagnostics(this.blocking).waiterCount() == count);
	}

}
