package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SearchStrategy;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockEngine;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOperations;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRules;
import io.github.redislock.LockRules.Violation;
import io.github.redislock.LockTemplate;
import io.github.redislock.annotation.DistributedLockBeanPostProcessor;
import io.github.redislock.annotation.LockKeyEvaluator;
import io.github.redislock.engine.RedisLockEngine;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of redis-lock: a
 * {@link RedisLockEngine} on the application's {@link RedisConnectionFactory}, configured
 * by {@link RedisLockProperties}, a {@link LockTemplate} on whichever {@link LockEngine}
 * the context has, and the {@link io.github.redislock.DistributedLock
 *
 * @DistributedLock} and {@link io.github.redislock.DistributedConcurrencyLimit
 * @DistributedConcurrencyLimit} support. {@code redis-lock.enabled=false} turns it all
 * off. An application replaces the engine with a {@link LockEngine} bean of its own, and
 * the template with a {@link LockOperations} bean. {@link ReactiveLockAutoConfiguration}
 * adds the reactive template.
 *
 * <p>
 * The engine connects and starts its threads at its first lock: an application that never
 * locks (one whose own {@link LockOperations} does not use it, say) opens no connection
 * and starts no thread for it, and the shutdown lifecycle, the health indicator, the
 * endpoint and the gauges that read it do not start it. Its background work (pending
 * acquisitions' rounds, background releases, the sweep of idle subscriptions) runs on the
 * {@link Executor} bean named {@value #TASK_EXECUTOR_BEAN_NAME} when there is one, else
 * on virtual threads when they are enabled ({@code spring.threads.virtual.enabled=true}
 * on JDK 21 or later), else on threads of the engine's own.
 *
 * <p>
 * The engine subscribes to release messages on a connection of its own, so the
 * application's {@code redisMessageListenerContainer} is neither used nor replaced. The
 * {@code @DistributedLock} support does not depend on the template being auto-configured:
 * with no {@link LockOperations} bean, an annotated bean fails at start-up with the
 * reason.
 *
 * <p>
 * The engine reports to the application's {@link LockObserver} beans, such as the
 * Micrometer ones that {@code RedisLockObservationAutoConfiguration} and
 * {@code RedisLockMetricsAutoConfiguration} provide; with none, it observes nothing and
 * costs nothing for it.
 *
 * <p>
 * When the context closes, {@code LockEngineShutdownLifecycle} shuts the engine down
 * before the Redis connection factory stops: new acquisitions and waiting threads fail,
 * holders get the shutdown phase's time to finish, and locks still held then are released
 * in Redis.
 * @author redis-lock
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
@ImportRuntimeHints(RedisLockAutoConfiguration.LuaScriptsRuntimeHints.class)
public final class RedisLockAutoConfiguration {

	/**
	 * The name of the {@link Executor} bean that runs the engine's background work, when
	 * the application defines one.
	 */
	public static final String TASK_EXECUTOR_BEAN_NAME = "redisLockTaskExecutor";

	private static final String PREFIX = "redis-lock.";

	/** Spring Boot's default {@code spring.lifecycle.timeout-per-shutdown-phase}. */
	private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The engine, with its background work on the application's
	 * {@value #TASK_EXECUTOR_BEAN_NAME}, or virtual threads when enabled, as Spring
	 * Boot's Lettuce connection factory does with them.
	 */
	@Bean
	@ConditionalOnMissingBean(LockEngine.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	RedisLockEngine redisLockEngine(RedisConnectionFactory redisConnectionFactory, RedisLockProperties properties,
			ObjectProvider<LockObserver> lockObservers,
			@Qualifier(TASK_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> taskExecutor, Environment environment) {
		LockOptions options = lockOptions(properties, redisConnectionFactory);
		LockObserver observer = CompositeLockObserver.of(lockObservers.orderedStream().toList());
		Executor executor = taskExecutor.getIfAvailable(
				() -> Threading.VIRTUAL.isActive(environment) ? new VirtualThreadTaskExecutor("redis-lock-") : null);
		return new RedisLockEngine(redisConnectionFactory, options, observer, executor);
	}

	@Bean
	@ConditionalOnMissingBean(LockOperations.class)
	@ConditionalOnSingleCandidate(LockEngine.class)
	LockTemplate lockTemplate(LockEngine lockEngine) {
		return new LockTemplate(lockEngine);
	}

	/**
	 * Shuts the engine down gracefully as the context closes, within the shutdown phase's
	 * time ({@code spring.lifecycle.timeout-per-shutdown-phase}, 30 seconds by default).
	 */
	@Bean
	@ConditionalOnSingleCandidate(LockEngine.class)
	LockEngineShutdownLifecycle redisLockShutdownLifecycle(LockEngine lockEngine, Environment environment) {
		Duration phaseTimeout = Binder.get(environment)
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(DEFAULT_PHASE_TIMEOUT);
		return new LockEngineShutdownLifecycle(lockEngine, phaseTimeout);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LockKeyEvaluator lockKeyEvaluator() {
		return new LockKeyEvaluator();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean(search = SearchStrategy.CURRENT)
	static DistributedLockBeanPostProcessor distributedLockBeanPostProcessor(Environment environment) {
		DistributedLockBeanPostProcessor processor = new DistributedLockBeanPostProcessor();
		processor.setProxyTargetClass(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
		return processor;
	}

	/**
	 * Convert the properties, checked against {@link LockRules}, and the replication
	 * timeout against the command timeout of a Lettuce connection factory.
	 * @throws InvalidConfigurationPropertyValueException naming the first property that
	 * breaks its rule, with what to do
	 */
	static LockOptions lockOptions(RedisLockProperties properties, RedisConnectionFactory connectionFactory) {
		LockOptions options = lockOptions(properties);
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			check("replication-timeout", options.replicationTimeout(), LockRules.replicationTimeout(
					options.replicationTimeout(), options.minReplicas(), Duration.ofMillis(lettuce.getTimeout())));
		}
		return options;
	}

	/**
	 * Convert the properties, checked against {@link LockRules}.
	 * @throws InvalidConfigurationPropertyValueException naming the first property that
	 * breaks its rule, with what to do
	 */
	static LockOptions lockOptions(RedisLockProperties properties) {
		String keyPrefix = properties.getKeyPrefix();
		check("key-prefix", keyPrefix, LockRules.keyPrefix(keyPrefix));
		Duration waitTime = properties.getWaitTime();
		check("wait-time", waitTime, LockRules.waitTime(waitTime));
		Duration leaseTime = properties.getLeaseTime();
		if (leaseTime != null) {
			check("lease-time", leaseTime, LockRules.leaseTime(leaseTime));
		}
		Duration lease = properties.getWatchdog().getLease();
		check("watchdog.lease", lease, LockRules.watchdogLease(lease));
		Duration renewInterval = properties.getWatchdog().getRenewInterval();
		check("watchdog.renew-interval", renewInterval, LockRules.renewInterval(renewInterval, lease));
		int minReplicas = properties.getMinReplicas();
		check("min-replicas", minReplicas, LockRules.minReplicas(minReplicas));
		Duration replicationTimeout = properties.getReplicationTimeout();
		check("replication-timeout", replicationTimeout, LockRules.replicationTimeout(replicationTimeout));
		return new LockOptions(keyPrefix, waitTime, leaseTime, lease, renewInterval, minReplicas, replicationTimeout);
	}

	private static void check(String name, @Nullable Object value, @Nullable Violation violation) {
		if (violation != null) {
			throw new InvalidConfigurationPropertyValueException(PREFIX + name, value,
					violation.message(PREFIX + name));
		}
	}

	/**
	 * Keeps the engine's Lua scripts in native images, where they are loaded from the
	 * classpath.
	 */
	static class LuaScriptsRuntimeHints implements RuntimeHintsRegistrar {

		@Override
		public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
			hints.resources().registerPattern("io/github/redislock/engine/*.lua");
		}

	}

}
