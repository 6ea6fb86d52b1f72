package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiter that stops existing while it waits a long time, here cut off from Redis as a
 * crashed JVM is: its writer intent or fair queue entry is short-lived and kept alive
 * only by the waiting thread, so it stops holding others up within a few seconds, not
 * after its whole wait.
 */
class CrashedWaiterTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration LONG_WAIT = Duration.ofMinutes(5);

	/** How soon the waiter's line entry must end once nothing renews it. */
	private static final Duration ENTRY_GONE = Duration.ofSeconds(8);

	/**
	 * The intent of the writer of the lock "doc" to take it, which keeps new readers out.
	 */
	private static final String WRITER_INTENT = "redis-lock:{doc}:rw:writer";

	private RedisServer server;

	private StandaloneLocks locks;

	private LockTemplate node;

	private RedisCli cli;

	private FaultProxy proxy;

	private LettuceConnectionFactory cutOffFactory;

	private LockTemplate cutOffNode;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.server = topology.servers();
		this.locks = topology.fixture();
		this.locks.flush();
		this.node = this.locks.template();
		this.cli = this.locks.cli();
		this.proxy = FaultProxy.start(this.server.host(), this.server.port());
		this.cutOffFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.proxy.host(), this.proxy.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
		this.cutOffFactory.afterPropertiesSet();
		this.cutOffFactory.start();
		this.cutOffNode = new LockTemplate(new RedisLockEngine(this.cutOffFactory));
		this.executor = LockFixture.executor("crashed-waiter-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.proxy.pass();
		this.cutOffNode.close();
		this.cutOffFactory.destroy();
		this.proxy.close();
		this.locks.close();
	}

	@Test
	void writerCutOffWhileWaitingStopsKeepingReadersOutWithinSeconds() throws Exception {
		LockTemplate otherNode = this.locks.template();
		LockFixture.warmUp(otherNode);
		try (LockHandle reader = this.node.readLock("doc")) {
			Future<?> writer = this.executor
				.submit(() -> this.cutOffNode.lock(LockRequest.write("doc").waitTime(LONG_WAIT)).close());
			await().atMost(Duration.ofSeconds(10)).until(() -> this.cli.command("EXISTS", WRITER_INTENT).equals(1L));
			this.proxy.blackhole();
			// The intent was renewed within its last second and lasts three: a new reader
			// asks while it is still there, and is kept out.
			assertThat(otherNode.tryLock(LockRequest.read("doc").waitTime(Duration.ZERO))).isEmpty();
			assertThat(this.cli.pttl(WRITER_INTENT)).as("writer intent's time to live after the refusal").isPositive();
			try (LockHandle late = otherNode.lock(LockRequest.read("doc").waitTime(ENTRY_GONE))) {
				assertThat(late.isHeld()).isTrue();
				assertThat(this.cli.command("EXISTS", WRITER_INTENT)).as("writer intent once the reader got in")
					.isEqualTo(0L);
			}
			assertThat(writer).isNotDone();
		}
	}

	@Test
	void fairWaiterCutOffWhileWaitingStopsHoldingUpTheQueueWithinSeconds() throws Exception {
		LockRequest fair = LockRequest.of("queue").fair(true).waitTime(LONG_WAIT);
		LockHandle holder = this.node.lock(fair);
		Future<?> cutOffWaiter = this.executor.submit(() -> this.cutOffNode.lock(fair).close());
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.cli.command("LLEN", "redis-lock:{queue}:queue").equals(1L));
		this.proxy.blackhole();
		Future<Boolean> next = this.executor.submit(() -> {
			try (LockHandle handle = this.node.lock(LockRequest.of("queue").fair(true).waitTime(ENTRY_GONE))) {
				return handle.isHeld();
			}
		});
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.cli.command("LLEN", "redis-lock:{queue}:queue").equals(2L));
		holder.close();
		// Granted within its wait once the cut-off waiter's entry ended, not refused for
		// it.
		assertThat(next.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(cutOffWaiter).isNotDone();
	}

}
