package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.redislock.CurrentLock;
import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.ReactiveCurrentLock;
import io.github.redislock.ReactiveLockTemplate;
import io.github.redislock.contract.CriticalSections.Section;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.notNullValue;

/**
 * Reactive locks ({@link ReactiveLockTemplate}) on every topology: reactive and blocking
 * callers of two nodes exclude each other on every primary, a reactive waiter is woken by
 * another node's release (the release message, on a cluster over sharded pub/sub), and a
 * reactive waiter that is cancelled leaves a fair queue and a writer intent at once. The
 * rest of the reactive API is shown on one server, in {@code ReactiveLockTemplateTests}.
 */
interface ReactiveLockContract extends LockContract {

	/** A wait far longer than any test should take. */
	Duration LONG_WAIT = Duration.ofSeconds(30);

	/**
	 * How long a critical section keeps the counter it read before writing it back, the
	 * reactive one across an asynchronous boundary: holders that overlap lose increments
	 * and are seen inside together.
	 */
	Duration WIDTH = Duration.ofMillis(1);

	@Test
	default void reactiveAndBlockingCallersOfTwoNodesExcludeEachOtherOnEveryPrimary() throws Exception {
		List<Node> nodes = List.of(node(), node());
		CriticalSections sections = new CriticalSections();
		for (String name : locks().names("reactive", 1)) {
			long[] counter = new long[1];
			LockRequest request = LockRequest.of(name).waitTime(LONG_WAIT);
			List<Future<?>> threads = new ArrayList<>();
			for (Node node : nodes) {
				threads.add(executor().submit(() -> {
					for (int i = 0; i < 10; i++) {
						node.blocking().run(request, () -> {
							Section section = sections.enter(name, node, CurrentLock.fencingToken());
							long read = counter[0];
							LockSupport.parkNanos(WIDTH.toNanos());
							counter[0] = read + 1;
							sections.exit(section);
						});
					}
				}));
			}
			Mono<Long> increment = ReactiveCurrentLock.fencingToken().flatMap((token) -> {
				Section section = sections.enter(name, Thread.currentThread(), token);
				long read = counter[0];
				return Mono.delay(WIDTH).map((tick) -> {
					counter[0] = read + 1;
					sections.exit(section);
					return read + 1;
				});
			});
			long reactive = Flux.range(0, 40)
				.flatMap((i) -> nodes.get(i % 2).reactive().execute(request, increment))
				.count()
				.block(LONG_WAIT);
			for (Future<?> thread : threads) {
				thread.get(30, TimeUnit.SECONDS);
			}
			assertThat(reactive).isEqualTo(40);
			assertThat(counter[0]).isEqualTo(60);
			assertThat(sections.maxInside(name)).isOne();
		}
		assertThat(sections.overlaps(true)).isEmpty();
		assertThat(sections.tokenInversions(true)).isEmpty();
	}

	@Test
	default void reactivePermitsAdmitAtMostTheLimitAcrossNodes() {
		List<Node> nodes = List.of(node(), node());
		LockRequest request = LockRequest.permit("reactive-permits", 3).waitTime(LONG_WAIT);
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger peak = new AtomicInteger();
		Mono<Integer> work = Mono.defer(() -> {
			peak.accumulateAndGet(inside.incrementAndGet(), Math::max);
			// Long enough that the three permits are held together, every time.
			return Mono.delay(Duration.ofMillis(20)).map((tick) -> inside.getAndDecrement());
		});
		long done = Flux.range(0, 30)
			.flatMap((i) -> nodes.get(i % 2).reactive().execute(request, work))
			.count()
			.block(LONG_WAIT);
		assertThat(done).isEqualTo(30);
		assertThat(peak.get()).isEqualTo(3);
	}

	@Test
	default void reactiveWaiterIsWokenByAnotherNodesRelease() {
		LockTemplate holder = locks().template();
		Node waiter = node();
		for (String name : locks().names("reactive-wake", 1)) {
			LockHandle held = holder.lock(name);
			Mono<Long> waiting = waiter.reactive()
				.execute(LockRequest.of(name).waitTime(LONG_WAIT), ReactiveCurrentLock.fencingToken());
			AtomicReference<Long> token = new AtomicReference<>();
			waiting.subscribe(token::set);
			await().until(() -> locks().diagnostics(waiter.blocking()).sleepingWaiterCount() == 1);
			held.close();
			// Long before the holder's 30 s lease would end.
			await().atMost(Duration.ofSeconds(5)).untilAtomic(token, notNullValue());
			assertThat(token.get()).isGreaterThan(held.fencingToken());
		}
	}

	@Test
	default void cancelledReactiveWaiterLeavesTheFairQueueAndTheWriterIntentAtOnce() {
		LockTemplate holder = locks().template();
		Node waiter = node();
		for (String name : locks().names("reactive-line", 1)) {
			RedisCli cli = locks().cli(name);
			String deadlines = LockFixture.lockKey(name) + ":queue:deadlines";
			String writer = LockFixture.lockKey(name) + ":rw:writer";
			try (LockHandle fair = holder.lock(LockRequest.of(name).fair(true));
					LockHandle read = holder.readLock(name)) {
				Disposable queued = waiter.reactive()
					.execute(LockRequest.of(name).fair(true).waitTime(LONG_WAIT), Mono.just(1))
					.subscribe();
				Disposable writing = waiter.reactive()
					.execute(LockRequest.write(name).waitTime(LONG_WAIT), Mono.just(2))
					.subscribe();
				await().until(() -> Long.valueOf(1).equals(cli.command("ZCARD", deadlines)) && cli.get(writer) != null);
				queued.dispose();
				writing.dispose();
				await().until(() -> Long.valueOf(0).equals(cli.command("ZCARD", deadlines)) && cli.get(writer) == null);
				assertThat(locks().diagnostics(waiter.blocking()).waiterCount()).isZero();
			}
		}
	}

	/** A node with a blocking and a reactive template on one engine. */
	private Node node() {
		RedisLockEngine engine = new RedisLockEngine(locks().connectionFactory(), LockOptions.defaults());
		return new Node(locks().template(engine), new ReactiveLockTemplate(engine));
	}

	/**
	 * The two templates of one engine.
	 *
	 * @param blocking the blocking template, whose diagnostics are the engine's
	 * @param reactive the reactive one
	 */
	record Node(LockTemplate blocking, ReactiveLockTemplate reactive) {
	}

}
