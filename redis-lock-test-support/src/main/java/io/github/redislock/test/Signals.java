package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Sends POSIX signals to processes with the {@code kill} command and observes whether a
 * process is stopped (Linux and macOS only).
 */
final class Signals {

	private static final Duration STATE_TIMEOUT = Duration.ofSeconds(5);

	private Signals() {
	}

	/**
	 * Stops the process with {@code SIGSTOP} and waits until the kernel reports it
	 * stopped, so that callers can rely on it not answering any more.
	 * @param pid the process id
	 */
	static void stop(long pid) {
		send("STOP", pid);
		if (!Polling.await(() -> isStopped(pid) || !isAlive(pid), STATE_TIMEOUT)) {
			throw new IllegalStateException("Process " + pid + " did not stop after SIGSTOP");
		}
	}

	/**
	 * Continues a stopped process with {@code SIGCONT} and waits until it runs again.
	 * @param pid the process id
	 */
	static void resume(long pid) {
		send("CONT", pid);
		if (!Polling.await(() -> !isStopped(pid), STATE_TIMEOUT)) {
			throw new IllegalStateException("Process " + pid + " did not continue after SIGCONT");
		}
	}

	/**
	 * Sends {@code SIGKILL} to the process without waiting.
	 * @param pid the process id
	 */
	static void kill(long pid) {
		send("KILL", pid);
	}

	/**
	 * Returns whether the process is alive and stopped by a signal.
	 * @param pid the process id
	 * @return whether the process is stopped
	 */
	static boolean isStopped(long pid) {
		Path stat = Path.of("/proc", Long.toString(pid), "stat");
		if (Files.isDirectory(Path.of("/proc", "self"))) {
			return isStopped(readProcStat(stat));
		}
		return run("ps", "-o", "stat=", "-p", Long.toString(pid)).trim().startsWith("T");
	}

	/**
	 * Returns whether a {@code /proc/PID/stat} line describes a stopped process.
	 * @param stat the content of the stat file, or {@code null} if the process is gone
	 * @return whether the process is stopped
	 */
	static boolean isStopped(String stat) {
		if (stat == null) {
			return false;
		}
		// The command name in parentheses may contain spaces: the state follows the
		// last closing parenthesis
		int end = stat.lastIndexOf(')');
		String state = stat.substring(end + 1).trim();
		return state.startsWith("T") || state.startsWith("t");
	}

	private static String readProcStat(Path stat) {
		try {
			return Files.readString(stat);
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static boolean isAlive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

	private static void send(String signal, long pid) {
		run("kill", "-" + signal, Long.toString(pid));
	}

	private static String run(String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(STATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " did not finish");
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						String.join(" ", command) + " failed with exit code " + process.exitValue() + ": " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + String.join(" ", command), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + String.join(" ", command), ex);
		}
	}

}
