package io.github.redislock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
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
 * @DistributedLock} support. {@code redis-lock.enabled=false} turns it all off. An
 * application replaces the engine with a {@link LockEngine} bean of its own, and the
 * template with a {@link LockOperations} bean. {@link ReactiveLockAutoConfiguration} adds
 * the reactive template.
 *
 * <p>
 * The engine is lazy: the auto-configured template creates it at start-up, but with the
 * application's own {@link LockOperations} it is created only if something uses it (an
 * application template built on it, the reactive template), and otherwise opens no
 * connection and starts no thread. The shutdown lifecycle, the health indicator, the
 * endpoint and the gauges reach it through a {@link LockEngineReference}, which never
 * creates it.
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

	private static final String PREFIX = "redis-lock.";

	/** Spring Boot's default {@code spring.lifecycle.timeout-per-shutdown-phase}. */
	private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The engine, created when something uses it: the auto-configured template at
	 * start-up, or an application's own {@link LockOperations} that is built on it. One
	 * that is not leaves the engine uncreated, with no connection or thread of its own.
	 */
	@Bean
	@Lazy
	@ConditionalOnMissingBean(LockEngine.class)
	@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
	RedisLockEngine redisLockEngine(RedisConnectionFactory redisConnectionFactory, RedisLockProperties properties,
			ObjectProvider<LockObserver> lockObservers) {
		LockOptions options = lockOptions(properties, redisConnectionFactory);
		LockObserver observer = CompositeLockObserver.of(lockObservers.orderedStream().toList());
		return new RedisLockEngine(redisConnectionFactory, options, observer);
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
	LockEngineShutdownLifecycle redisLockShutdownLifecycle(ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		Duration phaseTimeout = Binder.get(environment)
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(DEFAULT_PHASE_TIMEOUT);
		return new LockEngineShutdownLifecycle(LockEngineReference.singleCandidate(beanFactory)::ifCreated,
				phaseTimeout);
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
