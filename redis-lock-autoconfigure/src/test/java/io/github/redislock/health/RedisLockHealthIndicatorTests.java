package io.github.redislock.health;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisLockHealthIndicator}: its template reaches Redis through a
 * {@link FaultProxy}, which breaks the subscription connection.
 */
@RedisTest
class RedisLockHealthIndicatorTests {

	private FaultProxy proxy;

	private LettuceConnectionFactory proxiedFactory;

	private LettuceConnectionFactory directFactory;

	private LockTemplate template;

	private LockTemplate holder;

	private RedisLockHealthIndicator indicator;

	@BeforeEach
	void setUp(RedisServer server) {
		this.proxy = FaultProxy.start(server.host(), server.port());
		this.proxiedFactory = connectionFactory(this.proxy.host(), this.proxy.port());
		this.directFactory = connectionFactory(server.host(), server.port());
		this.template = new LockTemplate(this.proxiedFactory);
		this.holder = new LockTemplate(this.directFactory);
		this.indicator = new RedisLockHealthIndicator(this.template.engine());
	}

	@AfterEach
	void tearDown() {
		this.template.close();
		this.holder.close();
		this.proxiedFactory.destroy();
		this.directFactory.destroy();
		this.proxy.close();
	}

	@Test
	void upBeforeAnyThreadWaited() {
		Health health = this.indicator.health(true);
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("subscription", "none")
			.containsEntry("heldLocks", 0)
			.containsEntry("waitingThreads", 0);
	}

	@Test
	void upWhileSubscribedWithCountsInDetails() {
		waitOnce();
		try (LockHandle handle = this.template.lock("order:2")) {
			Health health = this.indicator.health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("subscription", "connected").containsEntry("heldLocks", 1);
		}
	}

	@Test
	void downWhileTheSubscriptionConnectionIsBrokenAndUpOnceItIsBack() {
		waitOnce();
		assertThat(this.indicator.health(true).getStatus()).isEqualTo(Status.UP);
		this.proxy.refuse();
		this.proxy.closeConnections();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			Health health = this.indicator.health(true);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("subscription", "disconnected")
				.hasEntrySatisfying("reason", (reason) -> assertThat(reason).asString().contains("lease runs out"));
		});
		this.proxy.pass();
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			Health health = this.indicator.health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("subscription", "connected");
		});
	}

	/** Wait for a lock once, which opens the subscription connection for good. */
	private void waitOnce() {
		try (LockHandle held = this.holder.lock("order:1")) {
			assertThat(this.template.tryLock("order:1", Duration.ofMillis(50))).isEmpty();
		}
	}

	private static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
