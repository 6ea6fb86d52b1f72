package io.github.redislock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} process on the loopback interface, started from a binary,
 * without persistence, in its own temporary working directory. Its output goes to
 * {@code redis.log} in that directory.
 */
final class LocalRedisProcess implements RedisBackend {

	static final String HOST = "127.0.0.1";

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration PORT_RELEASE_TIMEOUT = Duration.ofSeconds(5);

	// Long enough for sockets of the previous process in TIME_WAIT or FIN_WAIT to go
	private static final Duration RESTART_BIND_TIMEOUT = Duration.ofSeconds(10);

	private static final int START_ATTEMPTS = 5;

	private static final int LOG_TAIL_CHARS = 3000;

	private final Path executable;

	private final List<String> extraArgs;

	private final Path directory;

	private final int port;

	private final boolean clusterNode;

	private final String version;

	private volatile Process process;

	private volatile boolean paused;

	private volatile boolean closed;

	private LocalRedisProcess(Path executable, List<String> extraArgs, Path directory, int port, boolean clusterNode,
			Launch launch) {
		this.executable = executable;
		this.extraArgs = extraArgs;
		this.directory = directory;
		this.port = port;
		this.clusterNode = clusterNode;
		this.process = launch.process();
		this.version = launch.version();
	}

	/**
	 * Starts a server on a free port in a new temporary working directory, trying other
	 * ports if the chosen one gets taken before the server binds it.
	 * @param executable the {@code redis-server} binary
	 * @param extraArgs more arguments for the server
	 * @return the running server
	 */
	static LocalRedisProcess start(Path executable, List<String> extraArgs) {
		return start(executable, ShutdownCleanup.createDirectory(), extraArgs);
	}

	/**
	 * Starts a server on a free port in the given working directory, which the server
	 * owns from now on: it is deleted when the server is closed or fails to start. A
	 * cluster node ({@code --cluster-enabled yes}) gets a port whose cluster bus port is
	 * free too.
	 * @param executable the {@code redis-server} binary
	 * @param directory the working directory, for example holding a configuration file
	 * @param extraArgs more arguments for the server; the first one is the path of a
	 * configuration file if it does not start with {@code -}, as for {@code redis-server}
	 * @return the running server
	 */
	static LocalRedisProcess start(Path executable, Path directory, List<String> extraArgs) {
		boolean clusterNode = isClusterNode(extraArgs);
		PortTakenException lastPortTaken = null;
		try {
			for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
				int port = clusterNode ? Ports.reserveWithClusterBus() : Ports.reserve();
				try {
					Launch launch = launch(executable, extraArgs, directory, port);
					return new LocalRedisProcess(executable, List.copyOf(extraArgs), directory, port, clusterNode,
							launch);
				}
				catch (PortTakenException ex) {
					releasePorts(port, clusterNode);
					lastPortTaken = ex;
				}
				catch (RuntimeException ex) {
					releasePorts(port, clusterNode);
					throw ex;
				}
			}
		}
		catch (RuntimeException ex) {
			ShutdownCleanup.deleteDirectory(directory);
			throw ex;
		}
		ShutdownCleanup.deleteDirectory(directory);
		throw new IllegalStateException(
				"Could not start redis-server: the chosen port was taken " + START_ATTEMPTS + " times in a row",
				lastPortTaken);
	}

	private static boolean isClusterNode(List<String> args) {
		int index = args.indexOf("--cluster-enabled");
		return index >= 0 && index + 1 < args.size() && "yes".equalsIgnoreCase(args.get(index + 1));
	}

	private static void releasePorts(int port, boolean clusterNode) {
		Ports.release(port);
		if (clusterNode) {
			Ports.release(port + Ports.CLUSTER_BUS_OFFSET);
		}
	}

	@Override
	public String host() {
		return HOST;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public String version() {
		return this.version;
	}

	@Override
	public long pid() {
		return this.process.pid();
	}

	@Override
	public boolean isRunning() {
		return !this.closed && this.process.isAlive();
	}

	@Override
	public boolean isPaused() {
		return this.paused && isRunning();
	}

	@Override
	public boolean isClosed() {
		return this.closed;
	}

	@Override
	public synchronized void stop() {
		assertNotClosed();
		Process current = this.process;
		if (current.isAlive()) {
			resume();
			shutdownNoSave();
			if (!awaitExit(current)) {
				current.destroy();
				if (!awaitExit(current)) {
					current.destroyForcibly();
					awaitExit(current);
				}
			}
		}
		this.paused = false;
		ShutdownCleanup.unregister(current);
		// The process is gone, but the port may take a moment (or another program took
		// it:
		// restart() reports that with a clear message, so there is no failure here)
		Polling.await(() -> Ports.isFree(this.port), PORT_RELEASE_TIMEOUT);
	}

	@Override
	public synchronized void kill() {
		assertNotClosed();
		Process current = this.process;
		if (current.isAlive()) {
			try {
				Signals.kill(current.pid());
			}
			catch (RuntimeException ex) {
				current.destroyForcibly();
			}
			if (!awaitExit(current)) {
				throw new IllegalStateException("redis-server " + current.pid() + " did not exit after SIGKILL");
			}
		}
		this.paused = false;
		ShutdownCleanup.unregister(current);
	}

	@Override
	public synchronized void pause() {
		assertNotClosed();
		if (!this.process.isAlive()) {
			throw new IllegalStateException("redis-server on port " + this.port + " is not running");
		}
		if (!this.paused) {
			Signals.stop(this.process.pid());
			this.paused = true;
		}
	}

	@Override
	public synchronized void resume() {
		assertNotClosed();
		if (this.paused) {
			if (this.process.isAlive()) {
				Signals.resume(this.process.pid());
			}
			this.paused = false;
		}
	}

	@Override
	public synchronized void restart() {
		assertNotClosed();
		if (this.process.isAlive()) {
			stop();
		}
		long deadline = System.nanoTime() + RESTART_BIND_TIMEOUT.toNanos();
		while (true) {
			try {
				this.process = launch(this.executable, this.extraArgs, this.directory, this.port).process();
				this.paused = false;
				return;
			}
			catch (PortTakenException ex) {
				if (System.nanoTime() - deadline > 0) {
					throw new IllegalStateException("Could not restart redis-server: port " + this.port
							+ " is still in use after " + RESTART_BIND_TIMEOUT.toSeconds() + " s", ex);
				}
				Polling.pause();
			}
		}
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		Process current = this.process;
		try {
			if (current.isAlive()) {
				if (this.paused) {
					resumeQuietly(current);
				}
				current.destroyForcibly();
				awaitExit(current);
			}
		}
		finally {
			this.paused = false;
			ShutdownCleanup.unregister(current);
			releasePorts(this.port, this.clusterNode);
			ShutdownCleanup.deleteDirectory(this.directory);
		}
	}

	@Override
	public String toString() {
		return "redis-server " + this.version + " on " + HOST + ":" + this.port + " (" + this.executable + ")";
	}

	private void assertNotClosed() {
		if (this.closed) {
			throw new IllegalStateException("redis-server on port " + this.port + " is closed");
		}
	}

	private void shutdownNoSave() {
		try (RedisCli cli = new RedisCli(HOST, this.port, Duration.ofSeconds(2))) {
			cli.command("SHUTDOWN", "NOSAVE");
		}
		catch (UncheckedIOException ex) {
			// Expected: the server closes the connection instead of replying
		}
		catch (RedisErrorReplyException ex) {
			this.process.destroy();
		}
	}

	private static void resumeQuietly(Process process) {
		try {
			Signals.resume(process.pid());
		}
		catch (RuntimeException ex) {
			// SIGKILL ends a stopped process as well
		}
	}

	private static boolean awaitExit(Process process) {
		try {
			return process.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server to exit", ex);
		}
	}

	private static Launch launch(Path executable, List<String> extraArgs, Path directory, int port) {
		Path log = directory.resolve("redis.log");
		long logOffset = size(log);
		Process process = spawn(command(executable, extraArgs, directory, port), directory, log);
		ShutdownCleanup.register(process);
		try {
			return new Launch(process, awaitReady(process, port, log, logOffset));
		}
		catch (RuntimeException ex) {
			process.destroyForcibly();
			awaitExit(process);
			ShutdownCleanup.unregister(process);
			throw ex;
		}
	}

	private static List<String> command(Path executable, List<String> extraArgs, Path directory, int port) {
		List<String> command = new ArrayList<>();
		command.add(executable.toString());
		List<String> options = extraArgs;
		if (!extraArgs.isEmpty() && !extraArgs.get(0).startsWith("-")) {
			// redis-server only takes a configuration file as its first argument
			command.add(extraArgs.get(0));
			options = extraArgs.subList(1, extraArgs.size());
		}
		// Replicas sync at once: by default a primary waits 5 s for more replicas to join
		command.addAll(List.of("--port", Integer.toString(port), "--bind", HOST, "--save", "", "--appendonly", "no",
				"--repl-diskless-sync-delay", "0", "--dir", directory.toString(), "--daemonize", "no",
				"--protected-mode", "no"));
		command.addAll(options);
		return command;
	}

	private static Process spawn(List<String> command, Path directory, Path log) {
		ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(Redirect.appendTo(log.toFile()));
		for (int attempt = 1;; attempt++) {
			try {
				Process process = builder.start();
				process.getOutputStream().close();
				return process;
			}
			catch (IOException ex) {
				// A binary extracted a moment ago can be "busy" while a process forked
				// meanwhile by another thread still holds the file open for writing
				if (attempt >= 10 || !String.valueOf(ex.getMessage()).contains("Text file busy")) {
					throw new UncheckedIOException("Could not start " + String.join(" ", command), ex);
				}
				Polling.pause();
			}
		}
	}

	private static String awaitReady(Process process, int port, Path log, long logOffset) {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (true) {
			if (!process.isAlive()) {
				String output = read(log, logOffset);
				if (output.contains("Address already in use")) {
					throw new PortTakenException(port, output);
				}
				throw new IllegalStateException("redis-server exited with code " + process.exitValue()
						+ " before answering PING on port " + port + ". Its output:\n" + tail(output));
			}
			String version = probe(process, port);
			if (version != null) {
				return version;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("redis-server " + process.pid() + " did not answer PING on port " + port
						+ " within " + STARTUP_TIMEOUT.toSeconds() + " s. Its output:\n" + tail(read(log, logOffset)));
			}
			Polling.pause();
		}
	}

	/**
	 * Returns the version of the server on the port if it answers and is the given
	 * process, so a server that another program runs on the same port is never taken for
	 * ours.
	 */
	private static String probe(Process process, int port) {
		try (RedisCli cli = new RedisCli(HOST, port, Duration.ofMillis(500))) {
			if (!"PONG".equals(cli.ping())) {
				return null;
			}
			String info = cli.info("server");
			if (!Long.toString(process.pid()).equals(InfoFields.get(info, "process_id"))) {
				return null;
			}
			return InfoFields.get(info, "redis_version");
		}
		catch (UncheckedIOException | RedisErrorReplyException ex) {
			return null;
		}
	}

	private static long size(Path file) {
		try {
			return Files.exists(file) ? Files.size(file) : 0;
		}
		catch (IOException ex) {
			return 0;
		}
	}

	private static String read(Path file, long offset) {
		try (InputStream input = Files.newInputStream(file)) {
			input.skipNBytes(offset);
			return new String(input.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(could not read " + file + ": " + ex + ")";
		}
	}

	private static String tail(String output) {
		return (output.length() <= LOG_TAIL_CHARS) ? output
				: "..." + output.substring(output.length() - LOG_TAIL_CHARS);
	}

	private record Launch(Process process, String version) {
	}

	/**
	 * Thrown when redis-server could not bind its port because something else uses it.
	 */
	private static final class PortTakenException extends RuntimeException {

		PortTakenException(int port, String output) {
			super("Port " + port + " is already in use. redis-server said:\n" + tail(output));
		}

	}

}
