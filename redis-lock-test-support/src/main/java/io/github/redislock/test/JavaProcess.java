package io.github.redislock.test;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts another JVM running a main class with this JVM's classpath, for multi-JVM tests.
 * Its standard output and error are collected together by a daemon thread, so the pipe
 * never blocks the child. Always {@link #close() close} it; a JVM shutdown hook kills the
 * ones left over.
 */
public final class JavaProcess implements AutoCloseable {

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

	private static final int OUTPUT_TAIL_CHARS = 4000;

	private final Process process;

	private final String description;

	// Guarded by itself; waiters in awaitOutput() are notified on every change
	private final StringBuilder output = new StringBuilder();

	private final Thread collector;

	// Guarded by output: set once the child closed its end of the pipe
	private boolean outputEnded;

	private boolean paused;

	private JavaProcess(Process process, String description) {
		this.process = process;
		this.description = description;
		this.collector = new Thread(this::collectOutput, "java-process-output-" + process.pid());
		this.collector.setDaemon(true);
		this.collector.start();
	}

	/**
	 * Starts {@code java} from {@code java.home} with {@code -Xmx256m} and the
	 * {@code java.class.path} of this JVM, running the main class.
	 * @param mainClass the class with a {@code main} method
	 * @param args the arguments of {@code main}
	 * @return the running process
	 */
	public static JavaProcess start(Class<?> mainClass, String... args) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.add("-Xmx256m");
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(mainClass.getName());
		command.addAll(List.of(args));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			ShutdownCleanup.register(process);
			// The child gets an empty standard input rather than one that never ends
			process.getOutputStream().close();
			return new JavaProcess(process, mainClass.getName() + " " + String.join(" ", args));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start a JVM for " + mainClass.getName(), ex);
		}
	}

	/**
	 * Returns the process id.
	 * @return the process id
	 */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Returns whether the process is alive, including while it is paused.
	 * @return whether the process is alive
	 */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Kills the process with {@code SIGKILL} and waits until it has exited.
	 */
	public synchronized void kill() {
		this.process.destroyForcibly();
		if (!awaitExit(EXIT_TIMEOUT)) {
			throw new IllegalStateException("Process " + pid() + " did not exit after SIGKILL");
		}
		this.paused = false;
		ShutdownCleanup.unregister(this.process);
	}

	/**
	 * Pauses the process with {@code SIGSTOP}.
	 */
	public synchronized void pause() {
		if (!this.paused) {
			Signals.stop(pid());
			this.paused = true;
		}
	}

	/**
	 * Resumes a paused process with {@code SIGCONT}. Does nothing if it is not paused.
	 */
	public synchronized void resume() {
		if (this.paused) {
			if (this.process.isAlive()) {
				Signals.resume(pid());
			}
			this.paused = false;
		}
	}

	/**
	 * Waits until the process exits.
	 * @param timeout how long to wait at most
	 * @return the exit code
	 * @throws IllegalStateException on timeout, with the tail of the output
	 */
	public int waitFor(Duration timeout) {
		if (!awaitExit(timeout)) {
			throw new IllegalStateException("Process " + pid() + " (" + this.description + ") did not exit within "
					+ timeout + ". Its output:\n" + tail(output()));
		}
		awaitCollector();
		ShutdownCleanup.unregister(this.process);
		return this.process.exitValue();
	}

	/**
	 * Returns the standard output and error printed so far.
	 * @return the output
	 */
	public String output() {
		synchronized (this.output) {
			return this.output.toString();
		}
	}

	/**
	 * Waits until the output contains the text, for example a {@code "READY"} line
	 * printed by the child once it is set up.
	 * @param text the text to wait for
	 * @param timeout how long to wait at most
	 * @throws IllegalStateException on timeout or if the process exits first, with the
	 * output so far
	 */
	public void awaitOutput(String text, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.output) {
			while (this.output.indexOf(text) < 0) {
				long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
				if (remaining <= 0) {
					throw new IllegalStateException("Process " + pid() + " (" + this.description + ") did not print \""
							+ text + "\" within " + timeout + ". Its output so far:\n" + tail(this.output.toString()));
				}
				if (this.outputEnded) {
					throw new IllegalStateException(
							"Process " + pid() + " (" + this.description + ") ended its output without printing \""
									+ text + "\". Its output:\n" + tail(this.output.toString()));
				}
				try {
					this.output.wait(remaining);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting for output", ex);
				}
			}
		}
	}

	/**
	 * Kills the process if it is alive. Calling it again has no effect.
	 */
	@Override
	public void close() {
		if (this.process.isAlive()) {
			kill();
		}
		ShutdownCleanup.unregister(this.process);
	}

	@Override
	public String toString() {
		return "JavaProcess " + pid() + " (" + this.description + ")";
	}

	private void collectOutput() {
		char[] buffer = new char[8192];
		try (Reader reader = new InputStreamReader(this.process.getInputStream(), Charset.defaultCharset())) {
			int read;
			while ((read = reader.read(buffer)) != -1) {
				synchronized (this.output) {
					this.output.append(buffer, 0, read);
					this.output.notifyAll();
				}
			}
		}
		catch (IOException ex) {
			// The stream closes when the process is killed: what was read is kept
		}
		finally {
			synchronized (this.output) {
				this.outputEnded = true;
				this.output.notifyAll();
			}
		}
	}

	private boolean awaitExit(Duration timeout) {
		try {
			return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for process " + pid(), ex);
		}
	}

	private void awaitCollector() {
		try {
			// The output ends soon after the process, unless a grandchild keeps the pipe
			this.collector.join(1000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static String tail(String text) {
		return (text.length() <= OUTPUT_TAIL_CHARS) ? text : "..." + text.substring(text.length() - OUTPUT_TAIL_CHARS);
	}

}
