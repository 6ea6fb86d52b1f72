package io.github.redislock.test;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JavaProcess}.
 */
class JavaProcessTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	@Test
	void awaitOutputSeesReadyAndKillEndsTheProcess() {
		try (JavaProcess process = JavaProcess.start(ChildMain.class, "ready", "with", "args")) {
			process.awaitOutput("READY with args", TIMEOUT);
			assertThat(process.isAlive()).isTrue();
			assertThat(isAlive(process.pid())).isTrue();
			process.kill();
			assertThat(process.isAlive()).isFalse();
			assertThat(isAlive(process.pid())).isFalse();
		}
	}

	@Test
	void waitForReturnsTheExitCodeAndKeepsTheOutput() {
		try (JavaProcess process = JavaProcess.start(ChildMain.class, "exit", "3")) {
			assertThat(process.waitFor(TIMEOUT)).isEqualTo(3);
			assertThat(process.output()).contains("exiting with 3");
		}
	}

	@Test
	void waitForFailsWithTheOutputWhenTheProcessDoesNotExit() {
		try (JavaProcess process = JavaProcess.start(ChildMain.class, "ready")) {
			process.awaitOutput("READY", TIMEOUT);
			assertThatIllegalStateException().isThrownBy(() -> process.waitFor(Duration.ofMillis(100)))
				.withMessageContaining("did not exit")
				.withMessageContaining("READY");
		}
	}

	@Test
	void awaitOutputFailsWithTheOutputSoFar() {
		try (JavaProcess process = JavaProcess.start(ChildMain.class, "ready")) {
			process.awaitOutput("READY", TIMEOUT);
			assertThatIllegalStateException().isThrownBy(() -> process.awaitOutput("NEVER", Duration.ofMillis(100)))
				.withMessageContaining("NEVER")
				.withMessageContaining("READY");
		}
	}

	@Test
	void awaitOutputFailsAtOnceWhenTheProcessExitsWithoutPrintingTheText() {
		try (JavaProcess process = JavaProcess.start(ChildMain.class, "exit", "0")) {
			assertThatIllegalStateException().isThrownBy(() -> process.awaitOutput("READY", TIMEOUT))
				.withMessageContaining("ended its output")
				.withMessageContaining("exiting with 0");
		}
	}

	@Test
	void pauseStopsTheProcessUntilResume() {
		try (JavaProcess process = JavaProcess.start(ChildMain.class, "tick")) {
			process.awaitOutput("tick 1", TIMEOUT);
			process.pause();
			assertThat(Signals.isStopped(process.pid())).isTrue();
			int length = process.output().length();
			await().during(Duration.ofMillis(200))
				.atMost(Duration.ofSeconds(2))
				.until(() -> process.output().length() == length);
			process.resume();
			assertThat(Signals.isStopped(process.pid())).isFalse();
			await().atMost(TIMEOUT).until(() -> process.output().length() > length);
		}
	}

	@Test
	void closeKillsAPausedProcess() {
		long pid;
		try (JavaProcess process = JavaProcess.start(ChildMain.class, "ready")) {
			process.awaitOutput("READY", TIMEOUT);
			process.pause();
			pid = process.pid();
		}
		assertThat(isAlive(pid)).isFalse();
	}

	private static boolean isAlive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

}
