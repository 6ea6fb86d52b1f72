package io.github.redislock.annotation;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import io.github.redislock.CurrentLock;
import io.github.redislock.DistributedLock;
import io.github.redislock.LockEngine;
import io.github.redislock.LockSnapshot.HeldLock;
import io.github.redislock.LockTemplate;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistributedLock @DistributedLock} on {@link Async @Async} methods: the lock is
 * taken on the executor thread that runs the method, held for its whole run and until the
 * future it returns completes, and never by the caller's thread; whichever of the two
 * post-processors advises the bean first.
 */
@RedisTest
class DistributedLockAsyncTests {

	private static final String EXECUTOR_PREFIX = "lock-async-";

	private final ApplicationContextRunner runner;

	DistributedLockAsyncTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
			.withUserConfiguration(AsyncConfiguration.class);
	}

	@Test
	void lockIsHeldOnTheExecutorThreadUntilTheReturnedFutureCompletes(RedisServer redis) {
		this.runner.run((context) -> assertHeldOnExecutorThread(context.getBean(AsyncJobs.class),
				context.getBean(LockTemplate.class), redis));
	}

	@Test
	void lockIsHeldOnTheExecutorThreadWhenTheLockPostProcessorRunsFirst(RedisServer redis) {
		this.runner.withUserConfiguration(LockPostProcessorFirstConfiguration.class)
			.run((context) -> assertHeldOnExecutorThread(context.getBean(AsyncJobs.class),
					context.getBean(LockTemplate.class), redis));
	}

	@Test
	void voidMethodHoldsTheLockAsItsExecutorThreadForItsWholeRun(RedisServer redis) {
		this.runner.run((context) -> {
			AsyncJobs jobs = context.getBean(AsyncJobs.class);
			LockEngine engine = context.getBean(LockEngine.class);
			CountDownLatch finish = new CountDownLatch(1);
			jobs.report("daily", finish);
			await().until(() -> jobs.threads().containsKey("daily"));
			String thread = jobs.threads().get("daily");
			assertThat(thread).startsWith(EXECUTOR_PREFIX);
			assertThat(engine.diagnostics().snapshot().held()).extracting(HeldLock::key, HeldLock::thread)
				.containsExactly(tuple("report:daily", thread));
			assertThat(heldInRedis(redis, "report:daily")).isTrue();
			finish.countDown();
			await().until(() -> !heldInRedis(redis, "report:daily"));
		});
	}

	private static void assertHeldOnExecutorThread(AsyncJobs jobs, LockTemplate locks, RedisServer redis)
			throws Exception {
		CompletableFuture<String> finish = new CompletableFuture<>();
		CompletableFuture<String> result = jobs.export("orders", finish);
		await().until(() -> jobs.threads().containsKey("orders"));
		assertThat(jobs.threads().get("orders")).startsWith(EXECUTOR_PREFIX);
		assertThat(jobs.currentLock().get("orders")).as("CurrentLock on the executor thread").isTrue();
		// The method returned; its future, not yet complete, keeps the lock.
		assertThat(heldInRedis(redis, "export:orders")).isTrue();
		assertThat(CurrentLock.isPresent()).isFalse();
		assertThat(locks.tryLock("export:orders", Duration.ZERO)).as("a lock the caller's thread could re-enter")
			.isEmpty();
		assertThat(result).isNotDone();
		finish.complete("exported");
		assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("exported");
		assertThat(heldInRedis(redis, "export:orders")).as("held once the caller's future completed").isFalse();
	}

	private static boolean heldInRedis(RedisServer redis, String key) {
		try (RedisCli cli = redis.cli()) {
			return LockKeyValues.holder(cli, "redis-lock:{" + key + "}") != null;
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncConfiguration {

		@Bean
		ThreadPoolTaskExecutor lockExecutor() {
			ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
			executor.setThreadNamePrefix(EXECUTOR_PREFIX);
			executor.setCorePoolSize(2);
			return executor;
		}

		@Bean
		AsyncJobs asyncJobs() {
			return new AsyncJobs();
		}

	}

	/**
	 * The lock's post-processor ordered before {@code @EnableAsync}'s, which otherwise
	 * runs first as it is registered first.
	 */
	@Configuration(proxyBeanMethods = false)
	static class LockPostProcessorFirstConfiguration {

		@Bean
		static DistributedLockBeanPostProcessor distributedLockBeanPostProcessor() {
			DistributedLockBeanPostProcessor processor = new DistributedLockBeanPostProcessor();
			processor.setOrder(Ordered.HIGHEST_PRECEDENCE);
			return processor;
		}

	}

	static class AsyncJobs {

		private final Map<String, String> threads = new ConcurrentHashMap<>();

		private final Map<String, Boolean> currentLock = new ConcurrentHashMap<>();

		// Read through the proxy, so public: a CGLIB proxy has fields of its own.
		public Map<String, String> threads() {
			return this.threads;
		}

		public Map<String, Boolean> currentLock() {
			return this.currentLock;
		}

		@Async("lockExecutor")
		@DistributedLock(key = "export:#name", waitTime = "5s")
		public CompletableFuture<String> export(String name, CompletableFuture<String> finish) {
			this.currentLock.put(name, CurrentLock.isPresent());
			this.threads.put(name, Thread.currentThread().getName());
			return finish;
		}

		@Async("lockExecutor")
		@DistributedLock(key = "report:#name", waitTime = "5s")
		public void report(String name, CountDownLatch finish) throws InterruptedException {
			this.threads.put(name, Thread.currentThread().getName());
			finish.await(30, TimeUnit.SECONDS);
		}

	}

}
