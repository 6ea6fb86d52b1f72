package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Arguments at the edges: a key that would empty its hash tag and leases shorter than
 * Redis counts are refused up front, naming the argument, and an interrupt during a call
 * to Redis (held up by a proxy) ends the acquisition. The other edges are part of the
 * lock's contract, which every topology runs: see {@code LockEdgeContract}.
 */
class LockEdgeTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private RedisServer server;

	private StandaloneLocks locks;

	private RedisCli cli;

	@BeforeEach
	void setUp() {
		this.server = topology.servers();
		this.locks = topology.fixture();
		this.locks.flush();
		this.cli = this.locks.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		Thread.interrupted();
		this.locks.close();
	}

	@Test
	void keyBeginningWithAClosingBraceIsRefusedNamingTheKey() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of("}order"))
			.withMessageContaining("Lock key must not begin with '}'")
			.withMessageContaining("}order");
	}

	@Test
	void leaseShorterThanAMillisecondIsRefusedNamingIt() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.of("order").leaseTime(Duration.ofNanos(500_000)))
			.withMessageContaining("leaseTime must be at least 1 ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockOptions.defaults().withWatchdog(Duration.ofNanos(900_000), Duration.ofNanos(100)))
			.withMessageContaining("watchdogLease must be at least 1 ms");
	}

	@Test
	void interruptDuringTheCallToRedisEndsTheAcquisitionAndLeavesNothingLocked() throws Exception {
		try (FaultProxy proxy = FaultProxy.start(this.server.host(), this.server.port())) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
			factory.afterPropertiesSet();
			factory.start();
			try (LockTemplate slow = new LockTemplate(new RedisLockEngine(factory))) {
				slow.run("warm-up", () -> {
				});
				proxy.delay(Duration.ofMillis(500));
				AtomicReference<Thread> caller = new AtomicReference<>();
				CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
					caller.set(Thread.currentThread());
					try (LockHandle handle = slow.lock("order")) {
						return null;
					}
					catch (Throwable ex) {
						return ex;
					}
				});
				await().atMost(Duration.ofSeconds(5)).until(() -> caller.get() != null);
				await().atMost(Duration.ofSeconds(5)).until(() -> caller.get().getState() != Thread.State.RUNNABLE);
				caller.get().interrupt();
				assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(LockInterruptedException.class);
				proxy.pass();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> LockKeyValues.holder(this.cli, "redis-lock:{order}") == null);
			}
			finally {
				factory.destroy();
			}
		}
	}

}
