package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

import org.assertj.core.api.InstanceOfAssertFactories;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A lock the watchdog finds lost is warned about once, by a warning that names its key
 * and says what the loss means, however the loss comes to be reported: to the engine's
 * observer, and to the holder at release, even through {@link Lock#unlock()}, which
 * cannot throw it.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockWatchdogLossWarningTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	/** A renewal may come late by a command timeout and still be a renewal. */
	private static final LockOptions OPTIONS = LockOptions.defaults()
		.withWatchdog(Duration.ofMillis(2500), Duration.ofMillis(500));

	private static final int LOST = 3;

	private final CountingObserver observer = new CountingObserver();

	private StandaloneLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	private RedisCli cli;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template(OPTIONS, this.observer);
		this.otherNode = this.locks.template();
		this.cli = this.locks.cli();
		LockFixture.warmUp(this.template);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void eachLockWhoseKeyIsGoneIsWarnedAboutOnce(CapturedOutput output) {
		List<LockHandle> handles = lockAll("gone:");
		for (LockHandle handle : handles) {
			this.cli.command("DEL", "redis-lock:{" + handle.key() + "}");
		}
		assertEachLostWarnedOnce(handles, output);
	}

	@Test
	void eachLockTakenOverByAnotherOwnerIsWarnedAboutOnce(CapturedOutput output) {
		List<LockHandle> handles = lockAll("taken:");
		List<LockHandle> others = new ArrayList<>();
		for (LockHandle handle : handles) {
			this.cli.command("DEL", "redis-lock:{" + handle.key() + "}");
			others.add(this.otherNode.lock(LockRequest.of(handle.key()).waitTime(Duration.ZERO)));
		}
		assertEachLostWarnedOnce(handles, output);
		others.forEach(LockHandle::close);
	}

	@Test
	void eachLockUnlockedThroughTheLockAdapterAfterTheWatchdogFoundItLostIsWarnedAboutOnce(CapturedOutput output) {
		List<Lock> held = new ArrayList<>();
		for (int i = 0; i < LOST; i++) {
			Lock lock = this.template.asLock("adapted:" + i);
			lock.lock();
			held.add(lock);
			this.cli.command("DEL", "redis-lock:{adapted:" + i + "}");
		}
		for (int i = 0; i < LOST; i++) {
			String key = "adapted:" + i;
			await().atMost(Duration.ofSeconds(5)).until(() -> this.observer.losses(key) == 1);
		}
		// Lock.unlock() cannot throw the loss; the watchdog's warning was its report.
		held.forEach(Lock::unlock);
		for (int i = 0; i < LOST; i++) {
			String key = "adapted:" + i;
			assertThat(warningsAbout(output, key)).as("warnings about '%s' in%n%s", key, output)
				.singleElement(InstanceOfAssertFactories.STRING)
				.contains("Lost lock '" + key + "'", "no longer exclusive");
		}
	}

	private List<LockHandle> lockAll(String prefix) {
		List<LockHandle> handles = new ArrayList<>();
		for (int i = 0; i < LOST; i++) {
			handles.add(this.template.lock(prefix + i));
		}
		return handles;
	}

	private void assertEachLostWarnedOnce(List<LockHandle> handles, CapturedOutput output) {
		for (LockHandle handle : handles) {
			await().atMost(Duration.ofSeconds(5)).until(() -> this.observer.losses(handle.key()) == 1);
		}
		for (LockHandle handle : handles) {
			// The holder is told too; that is no second loss to warn about.
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		}
		for (LockHandle handle : handles) {
			List<String> warnings = warningsAbout(output, handle.key());
			assertThat(warnings).as("warnings about '%s' in%n%s", handle.key(), output).hasSize(1);
			assertThat(warnings.get(0)).contains("WARN", "fencing token " + handle.fencingToken(),
					"no longer exclusive");
			assertThat(this.observer.losses(handle.key())).isEqualTo(1);
		}
	}

	/** The warnings that say the lock was lost, one a line. */
	private static List<String> warningsAbout(CapturedOutput output, String key) {
		return output.getOut()
			.lines()
			.filter((line) -> line.contains("WARN") && line.contains("'" + key + "'"))
			.toList();
	}

}
