package io.github.redislock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport.ConditionAndOutcomes;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockOperations;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRules;
import io.github.redislock.LockTemplate;
import io.github.redislock.annotation.DistributedLockBeanPostProcessor;
import io.github.redislock.annotation.LockKeyEvaluator;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisLockAutoConfiguration}.
 */
@RedisTest
class RedisLockAutoConfigurationTests {

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	RedisLockAutoConfigurationTests(RedisServer redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void providesBeansWithDefaults() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LockTemplate.class)
				.hasSingleBean(LockEngine.class)
				.hasBean("redisLockEngine")
				.hasSingleBean(DistributedLockBeanPostProcessor.class)
				.hasSingleBean(LockKeyEvaluator.class)
				.hasSingleBean(RedisLockProperties.class);
			assertThat(context.getBean(LockTemplate.class).options()).isEqualTo(LockOptions.defaults());
			assertThat(context.getBean(LockEngine.class)).isInstanceOf(RedisLockEngine.class);
		});
	}

	@Test
	void locksThroughApplicationsConnectionFactory() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisConnectionFactory.class);
			try (LockHandle handle = context.getBean(LockTemplate.class).lock("invoice:1")) {
				assertThat(keys("redis-lock:*")).contains("redis-lock:{invoice:1}");
			}
		});
	}

	@Test
	void backsOffWhenApplicationDefinesLockTemplate() {
		this.runner.withUserConfiguration(ApplicationLocksConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(LockOperations.class);
			assertThat(context).getBean(LockTemplate.class).isSameAs(context.getBean("applicationLocks"));
			assertThat(context).hasSingleBean(DistributedLockBeanPostProcessor.class);
		});
	}

	@Test
	void backsOffWhenApplicationDefinesLockEngineAndBuildsTheTemplateOnIt() {
		this.runner.withUserConfiguration(ApplicationEngineConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(LockEngine.class).doesNotHaveBean("redisLockEngine");
			LockTemplate template = context.getBean(LockTemplate.class);
			assertThat(template.options().keyPrefix()).isEqualTo("application:");
			try (LockHandle handle = template.lock("invoice:3")) {
				assertThat(keys("application:*")).contains("application:{invoice:3}");
			}
		});
	}

	@Test
	void backsOffWhenApplicationDefinesPostProcessorOrKeyEvaluator() {
		DistributedLockBeanPostProcessor processor = new DistributedLockBeanPostProcessor();
		LockKeyEvaluator evaluator = new LockKeyEvaluator();
		this.runner.withBean(DistributedLockBeanPostProcessor.class, () -> processor)
			.withBean(LockKeyEvaluator.class, () -> evaluator)
			.run((context) -> {
				assertThat(context).getBean(DistributedLockBeanPostProcessor.class).isSameAs(processor);
				assertThat(context).getBean(LockKeyEvaluator.class).isSameAs(evaluator);
			});
	}

	@Test
	void disabledByProperty() {
		this.runner.withPropertyValues("redis-lock.enabled=false").withBean(Locked.class).run((context) -> {
			assertThat(context).doesNotHaveBean(LockTemplate.class)
				.doesNotHaveBean(DistributedLockBeanPostProcessor.class)
				.doesNotHaveBean(LockKeyEvaluator.class)
				.doesNotHaveBean(RedisLockProperties.class);
			assertThat(AopUtils.isAopProxy(context.getBean(Locked.class))).isFalse();
		});
	}

	@Test
	void annotatedBeansAreProxied() {
		this.runner.withBean(Locked.class)
			.run((context) -> assertThat(AopUtils.isAopProxy(context.getBean(Locked.class))).isTrue());
	}

	@Test
	void bindsProperties() {
		this.runner.withPropertyValues("redis-lock.key-prefix=billing:lock:", "redis-lock.wait-time=2s",
				"redis-lock.lease-time=1m", "redis-lock.watchdog.lease=9s", "redis-lock.watchdog.renew-interval=3000ms",
				"redis-lock.min-replicas=0", "redis-lock.replication-timeout=250ms")
			.run((context) -> {
				LockTemplate template = context.getBean(LockTemplate.class);
				assertThat(template.options())
					.isEqualTo(new LockOptions("billing:lock:", Duration.ofSeconds(2), Duration.ofMinutes(1),
							Duration.ofSeconds(9), Duration.ofSeconds(3), 0, Duration.ofMillis(250)));
				try (LockHandle handle = template.lock("invoice:2")) {
					assertThat(keys("billing:lock:*")).contains("billing:lock:{invoice:2}");
				}
			});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|',
			textBlock = """
					redis-lock.wait-time=-1s                | redis-lock.wait-time                | must be zero or positive but was PT-1S. Use zero
					redis-lock.lease-time=0s                | redis-lock.lease-time               | must be at least 1 ms
					redis-lock.lease-time=500us             | redis-lock.lease-time               | must be at least 1 ms
					redis-lock.watchdog.lease=-5s           | redis-lock.watchdog.lease           | must be at least 1 ms
					redis-lock.watchdog.renew-interval=0ms  | redis-lock.watchdog.renew-interval  | must be at least 1 ms
					redis-lock.watchdog.renew-interval=30s  | redis-lock.watchdog.renew-interval  | must be shorter than the watchdog lease (PT30S)
					redis-lock.key-prefix=                  | redis-lock.key-prefix               | must not be blank
					redis-lock.key-prefix=lock{x}           | redis-lock.key-prefix               | must not contain '{' or '}'
					redis-lock.min-replicas=-1              | redis-lock.min-replicas             | must be zero or positive
					redis-lock.replication-timeout=0s       | redis-lock.replication-timeout      | must be at least 1 ms
					""")
	void invalidPropertyFailsNamingIt(String property, String name, String reason) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (ex) -> {
					assertThat(ex.getName()).isEqualTo(name);
					assertThat(ex.getReason()).startsWith(name + " ").contains(reason);
				});
		});
	}

	@Test
	void replicationTimeoutNotShorterThanTheCommandTimeoutFailsNamingIt() {
		this.runner
			.withPropertyValues("redis-lock.min-replicas=1", "redis-lock.replication-timeout=2s",
					"spring.data.redis.timeout=2s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (ex) -> {
					assertThat(ex.getName()).isEqualTo("redis-lock.replication-timeout");
					assertThat(ex.getReason())
						.isEqualTo(LockRules.replicationTimeout(Duration.ofSeconds(2), 1, Duration.ofSeconds(2))
							.message("redis-lock.replication-timeout"));
				}));
	}

	@Test
	void replicationTimeoutIsNotComparedWithTheCommandTimeoutWhenGrantsWaitForNoReplica() {
		this.runner.withPropertyValues("redis-lock.replication-timeout=2s", "spring.data.redis.timeout=2s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class));
	}

	@Test
	void withoutConnectionFactoryThereIsNoTemplateAndTheReportSaysWhy() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(LockOperations.class)
					.doesNotHaveBean(LockEngine.class);
				Map<String, ConditionAndOutcomes> outcomes = ConditionEvaluationReport.get(context.getBeanFactory())
					.getConditionAndOutcomesBySource();
				ConditionAndOutcomes engine = outcomes
					.get(RedisLockAutoConfiguration.class.getName() + "#redisLockEngine");
				assertThat(engine.isFullMatch()).isFalse();
				assertThat(engine).map((outcome) -> outcome.getOutcome().getMessage())
					.anySatisfy((message) -> assertThat(message).contains(RedisConnectionFactory.class.getName())
						.contains("did not find any beans"));
				ConditionAndOutcomes template = outcomes
					.get(RedisLockAutoConfiguration.class.getName() + "#lockTemplate");
				assertThat(template.isFullMatch()).isFalse();
				assertThat(template).map((outcome) -> outcome.getOutcome().getMessage())
					.anySatisfy((message) -> assertThat(message).contains(LockEngine.class.getName())
						.contains("did not find any beans"));
			});
	}

	@Test
	void leavesApplicationsListenerContainerAlone() {
		this.runner.withUserConfiguration(ListenerContainerConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RedisMessageListenerContainer.class);
			assertThat(context).getBean("redisMessageListenerContainer")
				.isSameAs(context.getBean(ListenerContainerConfiguration.class).container);
		});
		// Without spring-messaging (here from the optional spring-integration-core), for
		// which Spring Boot defines a container of its own for @EnableRedisListeners
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.messaging"))
			.run((context) -> assertThat(context).doesNotHaveBean(RedisMessageListenerContainer.class));
	}

	@Test
	void engineStartsAtItsFirstLockAndIsClosedWithContext() {
		Set<Thread> before = watchdogThreads();
		this.runner.run((context) -> {
			assertThat(watchdogThreads()).isEqualTo(before);
			context.getBean(LockTemplate.class).lock("invoice:4").close();
			assertThat(watchdogThreads()).hasSize(before.size() + 1);
			context.close();
			await().untilAsserted(() -> assertThat(watchdogThreads()).isEqualTo(before));
		});
	}

	@Test
	void runsBackgroundWorkOnTheApplicationsTaskExecutor() {
		AtomicInteger tasks = new AtomicInteger();
		Executor executor = (task) -> {
			tasks.incrementAndGet();
			new Thread(task).start();
		};
		this.runner.withBean(RedisLockAutoConfiguration.TASK_EXECUTOR_BEAN_NAME, Executor.class, () -> executor)
			.run((context) -> {
				assertThat(tasks).hasValue(0);
				context.getBean(LockTemplate.class).lock("invoice:5").close();
				// The first lock connects ahead of the next ones in the background.
				assertThat(tasks).hasPositiveValue();
			});
	}

	@Test
	void runsBackgroundWorkOnItsOwnThreadsWhenTheApplicationsExecutorHasAnotherName() {
		AtomicInteger tasks = new AtomicInteger();
		Executor executor = (task) -> {
			tasks.incrementAndGet();
			new Thread(task).start();
		};
		this.runner.withBean("applicationTaskExecutor", Executor.class, () -> executor).run((context) -> {
			context.getBean(LockTemplate.class).lock("invoice:6").close();
			assertThat(tasks).hasValue(0);
		});
	}

	@Test
	void registersLuaScriptsAsRuntimeHints() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new RedisLockAutoConfiguration.LuaScriptsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redislock/engine/*.lua");
		assertThat(scripts).isNotEmpty();
		for (Resource script : scripts) {
			assertThat(
					RuntimeHintsPredicates.resource().forResource("io/github/redislock/engine/" + script.getFilename()))
				.accepts(hints);
		}
	}

	@Test
	void isRegisteredAsAutoConfiguration() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(RedisLockAutoConfiguration.class.getName());
	}

	@Test
	void publishesConfigurationMetadata() throws IOException {
		try (InputStream metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).isNotNull();
			String json = new String(metadata.readAllBytes(), StandardCharsets.UTF_8);
			assertThat(json).contains("\"redis-lock.enabled\"", "\"redis-lock.key-prefix\"", "\"redis-lock.wait-time\"",
					"\"redis-lock.lease-time\"", "\"redis-lock.watchdog.lease\"",
					"\"redis-lock.watchdog.renew-interval\"", "\"redis-lock.min-replicas\"",
					"\"redis-lock.replication-timeout\"", "\"defaultValue\": \"10s\"");
		}
	}

	private Set<String> keys(String pattern) {
		try (RedisCli cli = this.redis.cli()) {
			return Set.copyOf(cli.keys(pattern));
		}
	}

	private static Set<Thread> watchdogThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals("redis-lock-watchdog") && thread.isAlive())
			.collect(Collectors.toSet());
	}

	@Configuration(proxyBeanMethods = false)
	static class ListenerContainerConfiguration {

		private RedisMessageListenerContainer container;

		@Bean
		RedisMessageListenerContainer redisMessageListenerContainer(RedisConnectionFactory connectionFactory) {
			this.container = new RedisMessageListenerContainer();
			this.container.setConnectionFactory(connectionFactory);
			return this.container;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationLocksConfiguration {

		@Bean
		LockTemplate applicationLocks(LockEngine lockEngine) {
			return new LockTemplate(lockEngine);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationEngineConfiguration {

		@Bean
		RedisLockEngine applicationEngine(RedisConnectionFactory connectionFactory) {
			return new RedisLockEngine(connectionFactory, LockOptions.defaults().withKeyPrefix("application:"));
		}

	}

	static class Locked {

		@DistributedLock
		public void run() {
		}

	}

}
