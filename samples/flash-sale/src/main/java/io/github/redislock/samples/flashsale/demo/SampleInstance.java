package io.github.redislock.samples.flashsale.demo;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redislock.samples.flashsale.FlashSaleApplication;

/**
 * One instance of the sample in a JVM of its own, started with this JVM's classpath (or
 * its jar, under {@code java -jar}), on a free port, its output going to a log file.
 *
 * @author redis-lock
 */
final class SampleInstance implements AutoCloseable {

	private static final int LOG_TAIL_CHARS = 3000;

	private final String name;

	private final int port;

	private final Path log;

	private final Process process;

	private SampleInstance(String name, int port, Path log, Process process) {
		this.name = name;
		this.port = port;
		this.log = log;
		this.process = process;
	}

	/**
	 * Start an instance; it is ready once {@link #awaitReady} returns.
	 * @param name the instance name, used in its log and its log file name
	 * @param properties the application properties to pass on its command line
	 * @param aot whether to start it on its classes generated ahead of time
	 * ({@code -Dspring.aot.enabled=true})
	 * @param directory where to write its log
	 * @return the starting instance
	 */
	static SampleInstance start(String name, Map<String, String> properties, boolean aot, Path directory) {
		int port = freePort();
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		// Small and quick to start: two of them share the machine with Redis and the load
		command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
		if (aot) {
			command.add("-Dspring.aot.enabled=true");
		}
		command.addAll(launchTarget());
		Map<String, String> arguments = new LinkedHashMap<>(properties);
		// One value per property: Spring Boot would join repeated ones with commas
		arguments.put("server.port", Integer.toString(port));
		arguments.put("flash-sale.instance-name", name);
		arguments.forEach((key, value) -> command.add("--" + key + "=" + value));
		Path log = directory.resolve("instance-" + name + ".log");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			return new SampleInstance(name, port, log, process);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start instance " + name, ex);
		}
	}

	private static List<String> launchTarget() {
		String classPath = System.getProperty("java.class.path");
		// Under java -jar the class path is the Spring Boot jar alone, which only its own
		// launcher can read
		if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar")) {
			return List.of("-jar", classPath);
		}
		return List.of("-cp", classPath, FlashSaleApplication.class.getName());
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free port", ex);
		}
	}

	/**
	 * Wait until the instance answers HTTP requests that read Redis.
	 * @param client the client to ask with
	 * @param timeout how long to wait at most
	 * @throws IllegalStateException if the instance exits or is not ready in time, with
	 * the end of its log
	 * @throws InterruptedException if interrupted while waiting
	 */
	void awaitReady(HttpClient client, Duration timeout) throws InterruptedException {
		HttpRequest probe = HttpRequest.newBuilder(uri().resolve("/products/ready-check"))
			.timeout(Duration.ofSeconds(2))
			.build();
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("Instance " + this.name + " exited during start-up. " + logTail());
			}
			try {
				int status = client.send(probe, BodyHandlers.discarding()).statusCode();
				if (status == 200 || status == 404) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet
			}
			Thread.sleep(200);
		}
		throw new IllegalStateException(
				"Instance " + this.name + " was not ready within " + timeout + ". " + logTail());
	}

	/**
	 * Return the instance's name.
	 * @return the name
	 */
	String name() {
		return this.name;
	}

	/**
	 * Return the base URI of the instance, such as {@code http://127.0.0.1:41234}.
	 * @return the URI
	 */
	URI uri() {
		return URI.create("http://127.0.0.1:" + this.port);
	}

	/**
	 * Return the instance's log so far.
	 * @return the log
	 */
	String log() {
		try {
			return Files.readString(this.log, Charset.defaultCharset());
		}
		catch (IOException ex) {
			return "";
		}
	}

	private String logTail() {
		String log = log();
		String tail = (log.length() <= LOG_TAIL_CHARS) ? log : "..." + log.substring(log.length() - LOG_TAIL_CHARS);
		return "Its log (" + this.log + "):\n" + tail;
	}

	/**
	 * Stop the instance gracefully, or kill it if it takes longer than ten seconds.
	 */
	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			this.process.destroyForcibly();
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Stop the instance's JVM with {@code SIGSTOP}, as a long GC pause or a suspended VM
	 * would: it runs no code, renews nothing and answers nothing until {@link #resume()}.
	 */
	void pause() {
		signal("STOP");
	}

	/**
	 * Continue the instance's JVM with {@code SIGCONT} after {@link #pause()}.
	 */
	void resume() {
		signal("CONT");
	}

	private void signal(String signal) {
		String[] command = { "kill", "-" + signal, Long.toString(this.process.pid()) };
		try {
			Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(kill.getInputStream().readAllBytes(), Charset.defaultCharset());
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException(
						"Could not send SIG" + signal + " to instance " + this.name + ": " + output.trim());
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + String.join(" ", command), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending SIG" + signal, ex);
		}
	}

	/**
	 * Kill the instance at once, for a demo interrupted with Ctrl-C.
	 */
	void kill() {
		this.process.destroyForcibly();
	}

}
