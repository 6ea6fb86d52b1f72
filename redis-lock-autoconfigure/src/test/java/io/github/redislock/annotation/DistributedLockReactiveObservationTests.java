package io.github.redislock.annotation;

import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.ReactiveLockTemplate;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.observation.ObservationLockObserver;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reactive {@link DistributedLock @DistributedLock} method is observed as a blocking
 * one is: its acquisition and hold under the method's name, not its key.
 */
@RedisTest
class DistributedLockReactiveObservationTests {

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private LettuceConnectionFactory connectionFactory;

	private RedisLockEngine engine;

	@BeforeEach
	void setUp(RedisServer server) {
		this.connectionFactory = StandaloneLocks.connectionFactory(server);
		this.engine = new RedisLockEngine(this.connectionFactory, LockOptions.defaults(),
				new ObservationLockObserver(this.registry));
	}

	@AfterEach
	void tearDown() {
		this.engine.close();
		this.connectionFactory.destroy();
	}

	@Test
	void acquisitionAndHoldAreObservedUnderTheMethodName() {
		LockMethodSpec.Cache specs = new LockMethodSpec.Cache(LockKeyEvaluator::new);
		ReactiveLockTemplate reactive = new ReactiveLockTemplate(this.engine);
		LockTemplate blocking = new LockTemplate(this.engine);
		ProxyFactory factory = new ProxyFactory(new Orders());
		factory.setProxyTargetClass(true);
		factory.addAdvice(new DistributedLockInterceptor(specs, LockKeyEvaluator::new, () -> blocking,
				new ReactiveLockInterception(() -> reactive)));
		Orders orders = (Orders) factory.getProxy();
		assertThat(orders.load(42).block()).isEqualTo("order 42");
		assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("lock.name", "Orders.load")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasBeenStopped();
		assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.held")
			.that()
			.hasLowCardinalityKeyValue("lock.name", "Orders.load")
			.hasLowCardinalityKeyValue("outcome", "released")
			.hasBeenStopped();
	}

	static class Orders {

		@DistributedLock(key = "order:#id")
		public Mono<String> load(long id) {
			return Mono.just("order " + id);
		}

	}

}
