package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.protocol.ProtocolVersion;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiting for a held lock over RESP2, on a connection factory of the test's own. The rest
 * of waiting is part of the lock's contract, which every topology runs: see
 * {@code LockWaitingContract}.
 */
class LockWaitingTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final LockRequest LONG_WAIT = LockRequest.of("order:1").waitTime(Duration.ofSeconds(20));

	private StandaloneLocks locks;

	private LockTemplate holderNode;

	private final ExecutorService executor = LockFixture.executor("lock-waiting-tests");

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.holderNode = this.locks.template();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	/**
	 * Over RESP2 a subscribed connection refuses every other command, so the acquire a
	 * release message triggers cannot go out on it: it goes out on the engine's own
	 * connection instead, and the waiter still wakes holding the lock.
	 */
	@Test
	void waiterIsWokenByReleaseOverResp2() throws Exception {
		RedisServer server = topology.servers();
		LettuceConnectionFactory resp2 = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()),
				LettuceClientConfiguration.builder()
					.clientOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build())
					.build());
		resp2.afterPropertiesSet();
		resp2.start();
		RedisLockEngine engine = new RedisLockEngine(resp2);
		try (LockTemplate waiting = new LockTemplate(engine)) {
			for (int i = 0; i < 3; i++) {
				LockHandle held = this.holderNode.lock("order:1");
				CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> waiting.lock(LONG_WAIT),
						this.executor);
				await().atMost(Duration.ofSeconds(5)).until(() -> engine.diagnostics().sleepingWaiterCount() == 1);
				held.close();
				LockHandle granted = waiter.get(5, TimeUnit.SECONDS);
				assertThat(granted.isHeld()).isTrue();
				closeOn(granted);
			}
		}
		finally {
			resp2.destroy();
		}
	}

	private void closeOn(LockHandle handle) {
		// Handles may be closed from any thread.
		handle.close();
	}

}
