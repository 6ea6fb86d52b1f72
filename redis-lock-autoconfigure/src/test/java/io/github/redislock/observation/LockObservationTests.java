package io.github.redislock.observation;

import java.time.Duration;
import java.util.regex.Pattern;

import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Observations of {@link ObservationLockObserver} on a real Redis: names, tags and
 * outcomes of acquired, timed-out and lost locks.
 */
@RedisTest
class LockObservationTests {

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private LettuceConnectionFactory connectionFactory;

	private LockTemplate template;

	private LockTemplate otherNode;

	private RedisCli cli;

	@BeforeEach
	void setUp(RedisServer server) {
		this.connectionFactory = StandaloneLocks.connectionFactory(server);
		this.template = new LockTemplate(new RedisLockEngine(this.connectionFactory, LockOptions.defaults(),
				new ObservationLockObserver(this.registry)));
		this.otherNode = new LockTemplate(new RedisLockEngine(this.connectionFactory));
		this.cli = server.cli();
	}

	@AfterEach
	void tearDown() {
		this.template.close();
		this.otherNode.close();
		this.connectionFactory.destroy();
		this.cli.close();
	}

	@Test
	void acquiredLockIsObservedFromRequestToGrantAndHeldUntilReleased() {
		LockHandle handle = this.template.lock("order:42");
		assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.acquire")
			.that()
			.hasContextualNameEqualTo("acquire order:*")
			.hasLowCardinalityKeyValue("lock.name", "order:*")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.doesNotHaveHighCardinalityKeyValueWithKey("lock.key")
			.doesNotHaveError()
			.hasBeenStarted()
			.hasBeenStopped();
		assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.held")
			.that()
			.hasLowCardinalityKeyValue("lock.name", "order:*")
			.hasHighCardinalityKeyValue("lock.fencing-token", Long.toString(handle.fencingToken()))
			.hasBeenStarted()
			.isNotStopped();
		handle.close();
		assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.held")
			.that()
			.hasContextualNameEqualTo("held order:*")
			.hasLowCardinalityKeyValue("outcome", "released")
			.doesNotHaveError()
			.hasBeenStopped();
	}

	@Test
	void timedOutAcquisitionIsObservedWithoutHold() {
		try (LockHandle held = this.otherNode.lock("order:42")) {
			assertThat(this.template.tryLock("order:42", Duration.ofMillis(100))).isEmpty();
		}
		assertThat(this.registry).hasNumberOfObservationsEqualTo(1)
			.hasObservationWithNameEqualTo("redis.lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("lock.name", "order:*")
			.hasLowCardinalityKeyValue("outcome", "timed-out")
			.doesNotHaveError()
			.hasBeenStopped();
	}

	@Test
	void lockLostWhileHeldEndsItsHoldObservationLost() {
		LockHandle handle = this.template.lock(LockRequest.of("order:42").leaseTime(Duration.ofMillis(100)));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.cli.get("redis-lock:{order:42}") == null);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.held")
			.that()
			.hasLowCardinalityKeyValue("lock.name", "order:*")
			.hasLowCardinalityKeyValue("outcome", "lost")
			.hasError()
			.hasBeenStopped();
	}

	@Test
	void requestNameIsTheLockName() {
		this.template.run(LockRequest.of("order:42").name("Orders.pay"), () -> {
		});
		assertThat(this.registry)
			.forAllObservationsWithNameEqualTo("redis.lock.acquire",
					(observation) -> observation.hasLowCardinalityKeyValue("lock.name", "Orders.pay"))
			.forAllObservationsWithNameEqualTo("redis.lock.held",
					(observation) -> observation.hasLowCardinalityKeyValue("lock.name", "Orders.pay"));
	}

	@Test
	void keyIsAHighCardinalityValueOnlyWhenAsked() {
		try (LockTemplate template = new LockTemplate(
				new RedisLockEngine(this.connectionFactory, LockOptions.defaults(),
						new ObservationLockObserver(this.registry, new LockNames(Pattern.compile("\\d+")), true)))) {
			template.run("tenant-a:order:42", () -> {
			});
		}
		assertThat(this.registry).forAllObservationsWithNameEqualTo("redis.lock.acquire",
				(observation) -> observation.hasLowCardinalityKeyValue("lock.name", "tenant-a:order:*")
					.hasHighCardinalityKeyValue("lock.key", "tenant-a:order:42"));
	}

	@Test
	void reentrantAcquisitionIsNotObserved() {
		try (LockHandle outer = this.template.lock("order:42")) {
			this.template.lock("order:42").close();
		}
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("redis.lock.acquire", 1)
			.hasNumberOfObservationsWithNameEqualTo("redis.lock.held", 1);
	}

}
