package io.github.redislock.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockHandle;
import io.github.redislock.LockOperations;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.annotation.LockKeyEvaluator.LockKey;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@link DistributedLockBeanPostProcessor} with an application's own
 * {@link LockOperations}, which records each lock and release on the way to a real
 * {@link LockTemplate}.
 */
@RedisTest
class DistributedLockBeanPostProcessorTests {

	private final ApplicationContextRunner runner;

	DistributedLockBeanPostProcessorTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
			.withUserConfiguration(RecordingConfiguration.class);
	}

	@Test
	void severalKeysAreLockedInSortedOrderAndReleasedInReverse() {
		this.runner.run((context) -> {
			context.getBean(Services.class).several("2");
			assertThat(context.getBean(RecordingLockOperations.class).events).containsExactly("lock a:2", "lock b:2",
					"lock c:2", "release c:2", "release b:2", "release a:2");
		});
	}

	@Test
	void duplicateKeysAreLockedOnce() {
		this.runner.run((context) -> {
			context.getBean(Services.class).duplicates("x");
			assertThat(context.getBean(RecordingLockOperations.class).events).containsExactly("lock k:x",
					"release k:x");
		});
	}

	@Test
	void interfaceBeanGetsJdkProxyWhenClassProxyingIsOff() {
		this.runner.withPropertyValues("spring.aop.proxy-target-class=false").run((context) -> {
			Shipping shipping = context.getBean(Shipping.class);
			assertThat(AopUtils.isJdkDynamicProxy(shipping)).isTrue();
			shipping.ship(5);
			assertThat(context.getBean(RecordingLockOperations.class).events).containsExactly("lock ship:5",
					"release ship:5");
		});
	}

	@Test
	void interfaceBeanGetsClassProxyByDefault() {
		this.runner.run((context) -> {
			Shipping shipping = context.getBean(Shipping.class);
			assertThat(AopUtils.isCglibProxy(shipping)).isTrue();
			shipping.ship(6);
			assertThat(context.getBean(RecordingLockOperations.class).events).containsExactly("lock ship:6",
					"release ship:6");
		});
	}

	@Test
	void keyEvaluatorBeanCanBeReplaced() {
		this.runner.withBean("customEvaluator", CountingKeyEvaluator.class).run((context) -> {
			assertThat(context).getBean(LockKeyEvaluator.class).isInstanceOf(CountingKeyEvaluator.class);
			assertThat(context.getBean(CountingKeyEvaluator.class).parsed).contains("c:#id", "a:#id", "b:#id");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingConfiguration {

		@Bean
		RecordingLockOperations recordingLockOperations(RedisConnectionFactory connectionFactory) {
			return new RecordingLockOperations(new LockTemplate(new RedisLockEngine(connectionFactory)));
		}

		@Bean
		Services services() {
			return new Services();
		}

		@Bean
		Shipping shipping() {
			return new DefaultShipping();
		}

	}

	static class Services {

		@DistributedLock({ "c:#id", "a:#id", "b:#id" })
		public void several(String id) {
		}

		@DistributedLock({ "k:#id", "k:#p0" })
		public void duplicates(String id) {
		}

	}

	interface Shipping {

		@DistributedLock("ship:#orderId")
		void ship(long orderId);

	}

	static class DefaultShipping implements Shipping {

		@Override
		public void ship(long orderId) {
		}

	}

	static class CountingKeyEvaluator extends LockKeyEvaluator {

		final List<String> parsed = new CopyOnWriteArrayList<>();

		@Override
		LockKey parse(String template, Method method, Class<?> targetClass) {
			this.parsed.add(template);
			return super.parse(template, method, targetClass);
		}

	}

	/**
	 * Records every lock and release on the way to a real template.
	 */
	static class RecordingLockOperations implements LockOperations, AutoCloseable {

		private final LockTemplate delegate;

		final List<String> events = new CopyOnWriteArrayList<>();

		RecordingLockOperations(LockTemplate delegate) {
			this.delegate = delegate;
		}

		@Override
		public <T> T execute(LockRequest request, Supplier<T> action) {
			return this.delegate.execute(request, action);
		}

		@Override
		public Optional<LockHandle> tryLock(LockRequest request) {
			return this.delegate.tryLock(request);
		}

		@Override
		public Optional<Duration> remainingLease(String key) {
			return this.delegate.remainingLease(key);
		}

		@Override
		public LockHandle lock(LockRequest request) {
			LockHandle handle = this.delegate.lock(request);
			this.events.add("lock " + request.key());
			return new LockHandle() {

				@Override
				public String key() {
					return handle.key();
				}

				@Override
				public long fencingToken() {
					return handle.fencingToken();
				}

				@Override
				public boolean isHeld() {
					return handle.isHeld();
				}

				@Override
				public void extend(Duration leaseTime) {
					handle.extend(leaseTime);
				}

				@Override
				public void close() {
					handle.close();
					RecordingLockOperations.this.events.add("release " + request.key());
				}

			};
		}

		@Override
		public void close() {
			this.delegate.close();
		}

	}

}
