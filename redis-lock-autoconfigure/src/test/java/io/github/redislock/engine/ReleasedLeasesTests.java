package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The watchdog keeps no lease long after its release: a JVM that takes many short locks
 * holds on to none of them for the rest of a renew interval.
 */
@RedisTest
class ReleasedLeasesTests {

	private LettuceConnectionFactory connectionFactory;

	private RedisLockEngine engine;

	@BeforeEach
	void setUp(RedisServer server) {
		this.connectionFactory = StandaloneLocks.connectionFactory(server);
		// A renew interval far longer than the test, so that a released lease left in
		// the schedule would stay there until the end.
		this.engine = new RedisLockEngine(this.connectionFactory,
				LockOptions.defaults().withWatchdog(Duration.ofMinutes(3), Duration.ofMinutes(1)));
	}

	@AfterEach
	void tearDown() {
		this.engine.close();
		this.connectionFactory.destroy();
	}

	@Test
	void leasesReleasedWithinARenewIntervalAreDroppedWhileTheHeldOnesStayScheduled() throws Exception {
		LockTemplate locks = new LockTemplate(this.engine);
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			held.add(locks.lock("held:" + i));
		}
		int released = 5000;
		for (int i = 0; i < released; i++) {
			locks.lock("short:" + i).close();
		}
		LockWatchdog watchdog = this.engine.parts().running("").watchdog();
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(watchdog.scheduledCount()).isBetween(held.size(), 2 * held.size() + 1024));
		assertThat(watchdog.watchedCount()).isEqualTo(held.size());
		for (LockHandle handle : held) {
			assertThat(handle.isHeld()).isTrue();
			handle.close();
		}
	}

}
