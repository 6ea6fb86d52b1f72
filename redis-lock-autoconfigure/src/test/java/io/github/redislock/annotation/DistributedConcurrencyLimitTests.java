package io.github.redislock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.github.redislock.CurrentLock;
import io.github.redislock.DistributedConcurrencyLimit;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.LockRequest;
import io.github.redislock.LockSnapshot.AwaitedLock;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.autoconfigure.ReactiveLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistributedConcurrencyLimit @DistributedConcurrencyLimit} methods on a real
 * Redis: at most the limit run at once across two instances of the application, the limit
 * read from a property, the failure strategies when no permit comes free, permits held by
 * a {@code CompletableFuture} and a {@code Mono} until they complete, the fencing token
 * on {@link CurrentLock}, and re-entry of a nested call on the same key.
 */
@RedisTest
class DistributedConcurrencyLimitTests {

	private final ApplicationContextRunner runner;

	private final RedisServer redis;

	private final Calls calls = new Calls();

	private final ExecutorService callers = Executors.newFixedThreadPool(8);

	DistributedConcurrencyLimitTests(RedisServer redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, DataRedisAutoConfiguration.class,
							RedisLockAutoConfiguration.class, ReactiveLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"partner.max-exports=2")
			.withBean(Calls.class, () -> this.calls)
			.withBean(PartnerClient.class)
			.withBean(InnerClient.class)
			.withBean(NestedClient.class);
	}

	@AfterEach
	void stopCallers() {
		this.calls.gate.release(100);
		this.callers.shutdownNow();
	}

	@Test
	void noMoreThanTheLimitRunAtOnceAcrossTwoInstances() {
		this.runner.run((first) -> this.runner.run((second) -> {
			List<PartnerClient> instances = List.of(first.getBean(PartnerClient.class),
					second.getBean(PartnerClient.class));
			List<Future<Long>> quotes = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				PartnerClient client = instances.get(i % 2);
				quotes.add(this.callers.submit(() -> client.quote("acme")));
			}
			// The limit reached, the five others wait in their instance: at least one in
			// each
			await().until(() -> this.calls.inside.get() == 3
					&& waiters(first, "partner:acme") + waiters(second, "partner:acme") == 5);
			assertThat(waiters(first, "partner:acme")).isPositive();
			assertThat(waiters(second, "partner:acme")).isPositive();
			assertThat(holders("partner:acme")).isEqualTo(3);
			this.calls.gate.release(8);
			List<Long> tokens = new ArrayList<>();
			for (Future<Long> quote : quotes) {
				tokens.add(quote.get(30, TimeUnit.SECONDS));
			}
			assertThat(this.calls.peak.get()).isEqualTo(3);
			assertThat(this.calls.done.get()).isEqualTo(8);
			// CurrentLock inside: a fencing token of each grant, none given twice
			assertThat(tokens).doesNotHaveDuplicates().allSatisfy((token) -> assertThat(token).isPositive());
			assertThat(holders("partner:acme")).isZero();
		}));
	}

	@Test
	void limitStringIsReadFromAProperty() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			List<Future<?>> exports = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				exports.add(this.callers.submit(() -> client.export("tenant-1")));
			}
			await().until(() -> this.calls.inside.get() == 2 && waiters(context, "export:tenant-1") == 3);
			assertThat(holders("export:tenant-1")).isEqualTo(2);
			this.calls.gate.release(5);
			for (Future<?> export : exports) {
				export.get(30, TimeUnit.SECONDS);
			}
			assertThat(this.calls.peak.get()).isEqualTo(2);
			assertThat(this.calls.done.get()).isEqualTo(5);
		});
	}

	@Test
	void throwsLockTimeoutExceptionWhenTheLimitIsHeldForTheWholeWait() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			try (PermitsHeldElsewhere held = holdElsewhere(context, "report:1", 2)) {
				assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> client.report(1))
					.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("report:1"));
			}
			assertThat(client.runs()).isZero();
			assertThat(client.report(1)).isEqualTo("ran");
		});
	}

	@Test
	void skipsWhenTheLimitIsHeldForTheWholeWait() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			try (PermitsHeldElsewhere held = holdElsewhere(context, "report:2", 2)) {
				assertThat(client.reportOrSkip(2)).isEmpty();
			}
			assertThat(client.runs()).isZero();
			assertThat(client.reportOrSkip(2)).contains("ran");
		});
	}

	@Test
	void callsTheFallbackWhenTheLimitIsHeldForTheWholeWait() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			try (PermitsHeldElsewhere held = holdElsewhere(context, "report:3", 2)) {
				assertThat(client.reportOrFallback(3)).isEqualTo("fallback for 3");
			}
			assertThat(client.runs()).isZero();
			assertThat(client.reportOrFallback(3)).isEqualTo("ran");
		});
	}

	@Test
	void aSecondPermitIsTakenWhileOneIsHeldElsewhere() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			try (PermitsHeldElsewhere held = holdElsewhere(context, "report:4", 1)) {
				assertThat(client.report(4)).isEqualTo("ran");
			}
		});
	}

	@Test
	void completableFutureHoldsItsPermitUntilItCompletes() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = client.start("7", work);
			assertThat(result).isNotSameAs(work).isNotDone();
			assertThat(holders("job:7")).isEqualTo(1);
			CompletableFuture<Integer> holdersWhenCallerSeesCompletion = result.thenApply((value) -> holders("job:7"));
			CompletableFuture.runAsync(() -> work.complete("done")).join();
			assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
			assertThat(holdersWhenCallerSeesCompletion.join()).isZero();
		});
	}

	@Test
	void monoHoldsItsPermitFromSubscriptionToCompletion() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			Sinks.One<String> body = Sinks.one();
			Mono<String> mono = client.load("8", body.asMono());
			assertThat(holders("load:8")).as("nothing taken before subscription").isZero();
			CompletableFuture<String> result = mono.toFuture();
			await().until(() -> holders("load:8") == 1);
			assertThat(result).isNotDone();
			body.tryEmitValue("loaded");
			assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("loaded");
			assertThat(holders("load:8")).isZero();
		});
	}

	@Test
	void monoSkipsWhenTheLimitIsHeldForTheWholeWait() {
		this.runner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			try (PermitsHeldElsewhere held = holdElsewhere(context, "load:9", 1)) {
				assertThat(client.loadOrSkip("9").blockOptional(Duration.ofSeconds(5))).isEmpty();
			}
			assertThat(client.loadOrSkip("9").block(Duration.ofSeconds(5))).isEqualTo("loaded");
		});
	}

	@Test
	void aNestedCallOnTheSameKeyReentersThePermit() {
		this.runner.run((context) -> {
			NestedClient nested = context.getBean(NestedClient.class);
			// The inner method waits 0 with a limit of 1: a second permit would time out
			List<Long> seen = nested.outer("n1", () -> holders("nest:n1"));
			assertThat(seen.get(1)).as("the inner call's token").isEqualTo(seen.get(0));
			assertThat(seen.get(2)).as("holders seen by the inner call").isEqualTo(1L);
			assertThat(holders("nest:n1")).isZero();
		});
	}

	@Test
	void metricsAndTracesNameThePermitAfterTheMethod() {
		this.runner.withBean(Names.class).run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThat(client.report(11)).isEqualTo("ran");
			assertThat(context.getBean(Names.class).byKey).containsEntry("report:11", "PartnerClient.report");
		});
	}

	@Test
	void asyncMethodHoldsItsPermitOnTheExecutorThreadUntilItsFutureCompletes() {
		this.runner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
			AsyncExports exports = context.getBean(AsyncExports.class);
			CompletableFuture<String> finish = new CompletableFuture<>();
			CompletableFuture<String> result = exports.export("orders", finish);
			await().until(() -> exports.thread() != null);
			assertThat(exports.thread()).startsWith("permit-async-");
			assertThat(exports.tokenInside()).as("CurrentLock on the executor thread").isPositive();
			assertThat(CurrentLock.isPresent()).isFalse();
			// The method returned; its future, not yet complete, keeps the permit
			assertThat(holders("async:orders")).isEqualTo(1);
			assertThat(result).isNotDone();
			finish.complete("exported");
			assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("exported");
			assertThat(holders("async:orders")).isZero();
		});
	}

	/** How many hold a permit of a key in Redis now, from any instance. */
	private int holders(String key) {
		try (RedisCli cli = this.redis.cli()) {
			Object fields = cli.command("HKEYS", "redis-lock:{" + key + "}:permits");
			// Fields beginning with '~' flag an instance's waiters, not holders
			return (int) ((List<?>) fields).stream().filter((field) -> !field.toString().startsWith("~")).count();
		}
	}

	private static int waiters(ApplicationContext context, String key) {
		return context.getBean(LockEngine.class)
			.diagnostics()
			.snapshot()
			.awaited()
			.stream()
			.filter((awaited) -> awaited.key().equals(key))
			.mapToInt(AwaitedLock::waiters)
			.sum();
	}

	/**
	 * Take permits of a key on a thread of their own, which the test thread cannot
	 * re-enter.
	 */
	private PermitsHeldElsewhere holdElsewhere(ApplicationContext context, String key, int count) {
		LockTemplate locks = context.getBean(LockTemplate.class);
		ExecutorService thread = Executors.newSingleThreadExecutor();
		List<LockHandle> permits = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			permits.add(CompletableFuture
				.supplyAsync(() -> locks.lock(LockRequest.permit(key, count).reentrant(false)), thread)
				.join());
		}
		assertThat(holders(key)).isEqualTo(count);
		return new PermitsHeldElsewhere(permits, thread);
	}

	private record PermitsHeldElsewhere(List<LockHandle> permits, ExecutorService thread) implements AutoCloseable {

		@Override
		public void close() {
			this.permits.forEach(LockHandle::close);
			this.thread.shutdown();
		}

	}

	/**
	 * The calls inside limited methods, shared by the instances of a test: how many are
	 * inside now and at most, held there until the test lets them go.
	 */
	static final class Calls {

		final AtomicInteger inside = new AtomicInteger();

		final AtomicInteger peak = new AtomicInteger();

		final AtomicInteger done = new AtomicInteger();

		final Semaphore gate = new Semaphore(0);

		void run() {
			this.peak.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			try {
				this.gate.acquireUninterruptibly();
			}
			finally {
				this.inside.decrementAndGet();
				this.done.incrementAndGet();
			}
		}

	}

	static class PartnerClient {

		private final Calls calls;

		private final AtomicInteger runs = new AtomicInteger();

		PartnerClient(Calls calls) {
			this.calls = calls;
		}

		@DistributedConcurrencyLimit(limit = 3, key = "partner:#id", waitTime = "30s")
		public long quote(String id) {
			long token = CurrentLock.fencingToken();
			this.calls.run();
			return token;
		}

		@DistributedConcurrencyLimit(limitString = "${partner.max-exports}", key = "export:#tenant", waitTime = "30s")
		public void export(String tenant) {
			this.calls.run();
		}

		@DistributedConcurrencyLimit(limit = 2, key = "report:#id", waitTime = "0")
		public String report(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		@DistributedConcurrencyLimit(value = 2, key = "report:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public Optional<String> reportOrSkip(long id) {
			this.runs.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedConcurrencyLimit(limit = 2, key = "report:#id", waitTime = "0", onFailure = OnFailure.FALLBACK,
				fallback = "reportFallback")
		public String reportOrFallback(long id) {
			this.runs.incrementAndGet();
			return "ran";
		}

		String reportFallback(long id) {
			return "fallback for " + id;
		}

		public int runs() {
			return this.runs.get();
		}

		@DistributedConcurrencyLimit(limit = 1, key = "job:#id")
		public CompletableFuture<String> start(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedConcurrencyLimit(limit = 1, key = "load:#id")
		public Mono<String> load(String id, Mono<String> body) {
			return body;
		}

		@DistributedConcurrencyLimit(limit = 1, key = "load:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public Mono<String> loadOrSkip(String id) {
			return Mono.just("loaded");
		}

	}

	static class NestedClient {

		private final InnerClient inner;

		NestedClient(InnerClient inner) {
			this.inner = inner;
		}

		/**
		 * Call the inner method of the same key.
		 * @return the fencing tokens of the outer and inner calls, and the holders the
		 * inner one saw
		 */
		@DistributedConcurrencyLimit(limit = 1, key = "nest:#id")
		public List<Long> outer(String id, IntSupplier holders) {
			return List.of(CurrentLock.fencingToken(), this.inner.inner(id), (long) holders.getAsInt());
		}

	}

	static class InnerClient {

		@DistributedConcurrencyLimit(limit = 1, key = "nest:#id", waitTime = "0")
		public long inner(String id) {
			return CurrentLock.fencingToken();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

		@Bean
		ThreadPoolTaskExecutor permitExecutor() {
			ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
			executor.setThreadNamePrefix("permit-async-");
			executor.setCorePoolSize(2);
			return executor;
		}

		@Bean
		AsyncExports asyncExports() {
			return new AsyncExports();
		}

	}

	static class AsyncExports {

		private volatile @Nullable String thread;

		private volatile long tokenInside;

		@Async
		@DistributedConcurrencyLimit(limit = 1, key = "async:#id")
		public CompletableFuture<String> export(String id, CompletableFuture<String> finish) {
			this.tokenInside = CurrentLock.fencingToken();
			this.thread = Thread.currentThread().getName();
			return finish;
		}

		// Read through the proxy, so public: a CGLIB proxy has fields of its own
		public @Nullable String thread() {
			return this.thread;
		}

		public long tokenInside() {
			return this.tokenInside;
		}

	}

	/** The names the engine reports acquisitions under, by key. */
	static class Names implements LockObserver {

		final Map<String, String> byKey = new ConcurrentHashMap<>();

		@Override
		public @Nullable Object acquireStarted(String key, @Nullable String name) {
			if (name != null) {
				this.byKey.put(key, name);
			}
			return null;
		}

	}

}
