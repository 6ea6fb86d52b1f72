package io.github.redislock.metrics;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockException;
import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.observation.LockNames;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LockEngineMetrics} and {@link LockMetricsObserver} on a real Redis,
 * reached through a {@link FaultProxy} that can cut it off.
 */
@RedisTest
class LockMetricsTests {

	/**
	 * A renewal may come 2 s late before the lease runs out, room for the command timeout
	 * and for a busy machine.
	 */
	private static final LockOptions OPTIONS = LockOptions.defaults()
		.withWatchdog(Duration.ofMillis(2500), Duration.ofMillis(500));

	/**
	 * Short, so that renewals that cannot reach Redis fail well within the lease, yet
	 * long enough for a busy machine.
	 */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private FaultProxy proxy;

	private LettuceConnectionFactory connectionFactory;

	private LockTemplate template;

	private RedisCli cli;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.proxy = FaultProxy.start(server.host(), server.port());
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.proxy.host(), this.proxy.port()),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		RedisLockEngine engine = new RedisLockEngine(this.connectionFactory, OPTIONS,
				new LockMetricsObserver(this.registry, LockNames.defaults()));
		this.template = new LockTemplate(engine);
		new LockEngineMetrics(engine.diagnostics()).bindTo(this.registry);
		this.cli = server.cli();
		this.executor = Executors.newCachedThreadPool();
		// Connects and loads the scripts under a lease that a slow first connection
		// cannot outlast.
		this.template.run(LockRequest.of("warm-up").leaseTime(Duration.ofMinutes(1)), () -> {
		});
	}

	@AfterEach
	void tearDown() {
		this.executor.shutdownNow();
		this.template.close();
		this.connectionFactory.destroy();
		this.proxy.close();
		this.cli.close();
	}

	@Test
	void gaugesCountHeldLocksAndWaitingThreads() throws Exception {
		LockHandle first = this.template.lock("order:1");
		LockHandle second = this.template.lock("order:2");
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> this.template.lock("order:1"),
				this.executor);
		await().atMost(TIMEOUT).until(() -> gauge("redis.lock.waiters") == 1);
		assertThat(gauge("redis.lock.holds")).isEqualTo(2);
		assertThat(gauge("redis.lock.holds", "exclusive")).isEqualTo(2);
		assertThat(gauge("redis.lock.waiters", "exclusive")).isOne();
		assertThat(gauge("redis.lock.holds", "permit")).isZero();
		first.close();
		waiter.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).close();
		second.close();
		assertThat(gauge("redis.lock.holds")).isZero();
		assertThat(gauge("redis.lock.waiters")).isZero();
	}

	@Test
	void gaugesTellHeldAndAwaitedPermitsFromLocks() throws Exception {
		assertThat(this.registry.get("redis.lock.holds").gauges()).extracting((gauge) -> gauge.getId().getTag("mode"))
			.containsExactlyInAnyOrder("exclusive", "read", "write", "permit");
		LockHandle lock = this.template.lock("order:1");
		LockHandle first = this.template.lock(LockRequest.permit("exports", 2).reentrant(false));
		LockHandle second = this.template.lock(LockRequest.permit("exports", 2).reentrant(false));
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> this.template.lock(LockRequest.permit("exports", 2).waitTime(TIMEOUT)), this.executor);
		await().atMost(TIMEOUT).until(() -> gauge("redis.lock.waiters", "permit") == 1);
		assertThat(gauge("redis.lock.holds", "permit")).isEqualTo(2);
		assertThat(gauge("redis.lock.holds", "exclusive")).isOne();
		assertThat(gauge("redis.lock.waiters", "exclusive")).isZero();
		assertThat(gauge("redis.lock.holds")).isEqualTo(3);
		first.close();
		LockHandle granted = waiter.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		assertThat(gauge("redis.lock.waiters", "permit")).isZero();
		assertThat(gauge("redis.lock.holds", "permit")).isEqualTo(2);
		granted.close();
		second.close();
		lock.close();
		assertThat(gauge("redis.lock.holds")).isZero();
	}

	@Test
	void renewalsAndLossesAreCountedByLockName() {
		LockHandle handle = this.template.lock("order:42");
		await().atMost(TIMEOUT).until(() -> renewals("renewed") >= 1);
		this.cli.command("DEL", "redis-lock:{order:42}");
		await().atMost(TIMEOUT).until(() -> losses() == 1);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		assertThat(losses()).isOne();
		assertThat(renewals("failed")).isZero();
	}

	@Test
	void renewalsThatCannotReachRedisAreCountedAsFailedUntilTheLockIsLost() {
		LockHandle handle = this.template.lock("order:42");
		this.proxy.refuse();
		this.proxy.closeConnections();
		await().atMost(TIMEOUT).until(() -> losses() == 1);
		assertThat(renewals("failed")).isPositive();
		this.proxy.pass();
		assertThatExceptionOfType(LockException.class).isThrownBy(handle::close);
	}

	@Test
	void releasesRetriedInTheBackgroundAreGaugedUntilRedisAnswers() {
		this.proxy.blackhole();
		assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> this.template.lock("order:7"));
		// The acquisition may have run: its owner-checked release timed out too and is
		// tried again.
		await().atMost(TIMEOUT).until(() -> gauge("redis.lock.releases.retried") == 1);
		this.proxy.pass();
		await().atMost(TIMEOUT).until(() -> gauge("redis.lock.releases.retried") == 0);
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{order:7}")).isNull();
	}

	/** The sum of the gauges of the name, of every mode when tagged by mode. */
	private double gauge(String name) {
		return this.registry.get(name).gauges().stream().mapToDouble(Gauge::value).sum();
	}

	private double gauge(String name, String mode) {
		return this.registry.get(name).tag("mode", mode).gauge().value();
	}

	private double renewals(String outcome) {
		var counter = this.registry.find("redis.lock.renewals")
			.tags("lock.name", "order:*", "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private double losses() {
		var counter = this.registry.find("redis.lock.losses").tags("lock.name", "order:*").counter();
		return (counter != null) ? counter.count() : 0;
	}

}
