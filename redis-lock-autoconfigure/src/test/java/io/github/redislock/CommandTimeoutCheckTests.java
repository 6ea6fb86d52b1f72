package io.github.redislock;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis command timeout that does not fit in the watchdog lease minus the renew
 * interval is pointed out at start-up, naming the properties to change; one that fits is
 * not. The command timeout here is {@link StandaloneLocks#COMMAND_TIMEOUT two seconds}.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class CommandTimeoutCheckTests {

	private StandaloneLocks locks;

	@BeforeEach
	void setUp(RedisServer server) {
		this.locks = new StandaloneLocks(server);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void timeoutLongerThanTheLeaseLeftAtRenewalIsWarnedAboutWithTheProperties(CapturedOutput output) {
		this.locks.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), Duration.ofMillis(1500)));
		assertThat(output).contains("WARN")
			.contains("spring.data.redis.timeout, PT2S")
			.contains("redis-lock.watchdog.lease PT3S")
			.contains("redis-lock.watchdog.renew-interval PT1.5S");
	}

	@Test
	void timeoutThatFitsIsNotWarnedAbout(CapturedOutput output) {
		this.locks.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(10), Duration.ofSeconds(1)));
		assertThat(output).doesNotContain("spring.data.redis.timeout");
	}

}
