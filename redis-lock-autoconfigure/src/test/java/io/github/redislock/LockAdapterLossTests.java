package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link Lock} from {@link LockOperations#asLock} lost while held: {@code unlock()}
 * returns normally, as the interface cannot say otherwise, and the loss is logged as a
 * WARN and reported to the observer, whether the watchdog found it or the release did.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockAdapterLossTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	/** A renewal may come late by a command timeout and still be a renewal. */
	private static final LockOptions OPTIONS = LockOptions.defaults()
		.withWatchdog(Duration.ofMillis(2500), Duration.ofMillis(500));

	private final CountingObserver observer = new CountingObserver();

	private StandaloneLocks locks;

	private LockTemplate template;

	private RedisCli cli;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template(OPTIONS, this.observer);
		this.cli = this.locks.cli();
		LockFixture.warmUp(this.template);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void lockLostWhileHeldIsUnlockedNormallyAfterTheOneWarning(CapturedOutput output) {
		Lock lock = this.template.asLock("order:1");
		lock.lock();
		this.cli.command("DEL", "redis-lock:{order:1}");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.observer.losses("order:1") == 1);
		assertThat(output).contains("Lost lock 'order:1'");
		lock.unlock();
		// The watchdog's warning was the loss's one report: unlock() adds none.
		assertThat(output).doesNotContain("Lock.unlock() cannot report it");
		assertThat(output.getOut().lines().filter((line) -> line.contains("'order:1'") && line.contains("WARN")))
			.hasSize(1);
		assertThat(lock).hasToString("Lock[key=order:1, heldByCurrentThread=false]");
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void leaseRunOutIsFoundByUnlockWhichReturnsNormallyAndWarns(CapturedOutput output) {
		Lock lock = this.template.asLock(LockRequest.of("order:1").leaseTime(Duration.ofMillis(200)));
		lock.lock();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.cli.get("redis-lock:{order:1}") == null);
		lock.unlock();
		assertThat(this.observer.losses("order:1")).isEqualTo(1);
		assertThat(output).contains("Lock 'order:1'", "was lost while held", "Lock.unlock() cannot report it");
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

}
