package io.github.redislock;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The defaults warn about nothing: Spring Boot's command timeout (unset, so Lettuce's
 * minute) is twice the default lease, and plays no part in renewing it, since the engine
 * waits for a renewal by a deadline of its own. What is pointed out at start-up is a
 * watchdog that leaves too little of a lease when its renewal is due.
 */
@ExtendWith(OutputCaptureExtension.class)
class RenewalRoomCheckTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	/** What Lettuce waits for an answer when Spring Boot sets no timeout. */
	private static final Duration LETTUCE_DEFAULT_TIMEOUT = Duration.ofSeconds(60);

	private StandaloneLocks locks;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void defaultsWithTheDefaultCommandTimeoutWarnAboutNothing(CapturedOutput output) throws Exception {
		LockTemplate template = this.locks.template(LockOptions.defaults(), LETTUCE_DEFAULT_TIMEOUT);
		try (LockHandle handle = template.lock(LockRequest.of("room-defaults"))) {
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(output).doesNotContain("WARN");
	}

	@Test
	void leaseThatLeavesUnderASecondAtRenewalIsWarnedAboutWithTheProperties(CapturedOutput output) {
		this.locks.template(LockOptions.defaults().withWatchdog(Duration.ofMillis(1200), Duration.ofMillis(400)));
		assertThat(output).contains("WARN")
			.contains("redis-lock.watchdog.lease PT1.2S")
			.contains("redis-lock.watchdog.renew-interval PT0.4S")
			.doesNotContain("spring.data.redis.timeout");
	}

	@Test
	void leaseThatLeavesASecondOrMoreIsNotWarnedAbout(CapturedOutput output) {
		this.locks.template(LockOptions.defaults().withWatchdog(Duration.ofMillis(1500), Duration.ofMillis(500)));
		assertThat(output).doesNotContain("redis-lock.watchdog.lease");
	}

}
