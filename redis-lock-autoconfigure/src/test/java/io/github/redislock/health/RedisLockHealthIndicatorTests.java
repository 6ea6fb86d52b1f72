package io.github.redislock.health;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
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

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private FaultProxy proxy;

	private LettuceConnectionFactory proxiedFactory;

	private LettuceConnectionFactory directFactory;

	private LockTemplate template;

	private LockDiagnostics diagnostics;

	private LockTemplate holder;

	private RedisLockHealthIndicator indicator;

	@BeforeEach
	void setUp(RedisServer server) {
		this.proxy = FaultProxy.start(server.host(), server.port());
		this.proxiedFactory = connectionFactory(this.proxy.host(), this.proxy.port());
		this.directFactory = connectionFactory(server.host(), server.port());
		RedisLockEngine engine = new RedisLockEngine(this.proxiedFactory);
		this.template = new LockTemplate(engine);
		this.diagnostics = engine.diagnostics();
		this.holder = new LockTemplate(new RedisLockEngine(this.directFactory));
		this.indicator = new RedisLockHealthIndicator(this.diagnostics);
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

	/**
	 * The engine closes its subscription connection when an unsubscription goes
	 * unanswered (here every reply takes longer than the command timeout): down while a
	 * thread waits on a channel that is not subscribed, since only the holder's lease can
	 * wake it then, and up once the channel is subscribed again.
	 */
	@Test
	void downWhileAWaitedChannelIsNotSubscribedAfterTheEngineClosedItsConnection() {
		LockHandle held = this.holder.lock(LockRequest.of("order:3").leaseTime(Duration.ofMinutes(1)));
		CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture
			.supplyAsync(() -> this.template.tryLock("order:3", Duration.ofMinutes(1)));
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> this.diagnostics.waiterCount() == 1);
			waitOnce();
			assertThat(this.indicator.health(true).getStatus()).isEqualTo(Status.UP);
			// The idle channel is unsubscribed a second later; the reply comes too late.
			this.proxy.delay(COMMAND_TIMEOUT.plusMillis(500));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				Health health = this.indicator.health(true);
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsEntry("subscription", "disconnected");
			});
			this.proxy.pass();
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				Health health = this.indicator.health(true);
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("subscription", "connected")
					.containsEntry("waitingThreads", 1);
			});
		}
		finally {
			held.close();
		}
		assertThat(waiter.join()).isPresent().hasValueSatisfying(LockHandle::close);
	}

	/** Wait for a lock once, which opens the subscription connection for good. */
	private void waitOnce() {
		try (LockHandle held = this.holder.lock("order:1")) {
			assertThat(this.template.tryLock("order:1", Duration.ofMillis(50))).isEmpty();
		}
	}

	private static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
