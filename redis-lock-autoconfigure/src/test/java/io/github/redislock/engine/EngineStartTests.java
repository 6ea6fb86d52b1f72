package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockShutdownException;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An engine connects and starts its threads at its first acquisition, not when created:
 * until then its diagnostics report nothing, and one shut down before it never starts.
 * Its background work runs on a counting executor, whose count tells whether it started.
 */
@RedisTest
class EngineStartTests {

	private final AtomicInteger backgroundTasks = new AtomicInteger();

	private final Executor countingExecutor = (task) -> {
		this.backgroundTasks.incrementAndGet();
		new Thread(task).start();
	};

	@Test
	void firstAcquisitionConnectsAndStartsTheEngine(RedisServer server) {
		LettuceConnectionFactory connectionFactory = StandaloneLocks.connectionFactory(server);
		long clientsBefore = connectedClients(server);
		try (RedisLockEngine engine = new RedisLockEngine(connectionFactory, LockOptions.defaults(), null,
				this.countingExecutor)) {
			assertThat(engine.diagnostics().heldCount()).isZero();
			assertThat(engine.diagnostics().renewedCount()).isZero();
			assertThat(connectedClients(server)).isEqualTo(clientsBefore);
			assertThat(this.backgroundTasks).hasValue(0);
			engine.acquire(LockRequest.of("started"), Duration.ZERO).close();
			assertThat(connectedClients(server)).isGreaterThan(clientsBefore);
			assertThat(this.backgroundTasks).hasPositiveValue();
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void engineShutDownBeforeItsFirstAcquisitionNeverStarts(RedisServer server) throws Exception {
		LettuceConnectionFactory connectionFactory = StandaloneLocks.connectionFactory(server);
		try {
			RedisLockEngine engine = new RedisLockEngine(connectionFactory, LockOptions.defaults(), null,
					this.countingExecutor);
			engine.shutdown(Duration.ofSeconds(1));
			assertThatExceptionOfType(LockShutdownException.class)
				.isThrownBy(() -> engine.acquire(LockRequest.of("late"), Duration.ZERO));
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> engine.acquireAsync(LockRequest.of("late"), Duration.ZERO).get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockShutdownException.class);
			engine.close();
			assertThat(this.backgroundTasks).hasValue(0);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	private static long connectedClients(RedisServer server) {
		try (RedisCli cli = new RedisCli(server.host(), server.port())) {
			String info = cli.info("clients");
			return info.lines()
				.filter((line) -> line.startsWith("connected_clients:"))
				.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim()))
				.findFirst()
				.orElseThrow();
		}
	}

}
