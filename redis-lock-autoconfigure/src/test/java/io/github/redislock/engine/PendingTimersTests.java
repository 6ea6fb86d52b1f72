package io.github.redislock.engine;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.ReactiveLockTemplate;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Memory stays flat under a steady rate of reactive acquisitions: a pending acquisition
 * arms a timer for each sleep and cancels it when woken, and a cancelled timer must not
 * stay queued (with the acquisition, its handle and its lease) until its time.
 */
class PendingTimersTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final int ACQUISITIONS = 100_000;

	private static final int IN_FLIGHT = 64;

	@Test
	void cancelledTimersOfReactiveAcquisitionsLeaveTheQueue() throws Exception {
		try (StandaloneLocks locks = topology.fixture()) {
			RedisLockEngine engine = new RedisLockEngine(locks.connectionFactory(), LockOptions.defaults());
			try {
				ReactiveLockTemplate reactive = new ReactiveLockTemplate(engine);
				// Four callers per key, so that most wait, sleep and are woken by a
				// release.
				Long done = Flux.range(0, ACQUISITIONS)
					.flatMap((i) -> reactive.execute(
							LockRequest.of("timers:" + (i % (IN_FLIGHT / 4))).waitTime(Duration.ofMinutes(1)),
							Mono.just(i)), IN_FLIGHT)
					.count()
					.block(Duration.ofMinutes(5));
				assertThat(done).isEqualTo(ACQUISITIONS);
				assertThat(engine.parts().threads().queuedTimers())
					.as("timers queued after %,d acquisitions", ACQUISITIONS)
					.isLessThanOrEqualTo(IN_FLIGHT);
			}
			finally {
				engine.close();
			}
		}
	}

}
