package io.github.redislock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.test.RedisCli;

/**
 * Watches Redis with {@code MONITOR} for a short probe, which tells exactly which
 * commands clients sent and which ran inside Lua scripts: {@code INFO commandstats}
 * cannot tell them apart. Too costly to leave on while measuring throughput.
 */
final class MonitorProbe implements AutoCloseable {

	private static final String END_MARKER = "redis-lock-benchmarks-monitor-end";

	/**
	 * A quoted argument, escapes included. Runs of plain characters are matched in one
	 * step: an alternation per character recurses once per character and overflows the
	 * stack on a script's source sent with {@code EVAL}.
	 */
	private static final Pattern QUOTED = Pattern.compile("\"([^\"\\\\]*+(?:\\\\.[^\"\\\\]*+)*+)\"");

	private final Socket socket;

	private final Map<String, Long> fromClients = new TreeMap<>();

	private final Map<String, Long> fromScripts = new TreeMap<>();

	private final CountDownLatch ended = new CountDownLatch(1);

	private final Set<String> ignoredKeys;

	/** Commands clients sent so far, for a caller that waits for them. */
	private volatile long clientCommandsSeen;

	private MonitorProbe(String host, int port, Set<String> ignoredKeys) throws IOException {
		this.ignoredKeys = ignoredKeys;
		this.socket = new Socket(host, port);
		OutputStream output = this.socket.getOutputStream();
		output.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
		output.flush();
		BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
		if (!"+OK".equals(reader.readLine())) {
			throw new IllegalStateException("MONITOR was refused");
		}
		Thread thread = new Thread(() -> collect(reader), "monitor-probe");
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * Start watching.
	 * @param ignoredKeys keys whose commands are the harness's own, such as the hot-key
	 * counter, and are not counted
	 */
	static MonitorProbe start(String host, int port, String... ignoredKeys) {
		try {
			return new MonitorProbe(host, port, Set.of(ignoredKeys));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Wait until every command sent before this call was seen, then stop watching. */
	void finish(RedisCli cli) throws InterruptedException {
		cli.command("ECHO", END_MARKER);
		if (!this.ended.await(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("MONITOR did not show the end marker");
		}
		close();
	}

	/**
	 * Wait until clients have sent at least the given number of commands since the start,
	 * or the timeout has passed.
	 * @return whether they did
	 */
	boolean awaitClientCommands(long count, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.clientCommandsSeen < count) {
			if (System.nanoTime() - deadline > 0) {
				return false;
			}
			Thread.sleep(10);
		}
		return true;
	}

	long clientCommands() {
		return sum(this.fromClients);
	}

	long scriptCommands() {
		return sum(this.fromScripts);
	}

	Map<String, Long> fromClients() {
		return this.fromClients;
	}

	/**
	 * The share of each command's calls that clients sent, the rest having run inside
	 * scripts: {@code evalsha} 1.0, {@code get} 0.0 for a lock whose scripts read keys.
	 */
	Map<String, Double> clientShares() {
		Map<String, Double> shares = new TreeMap<>();
		this.fromClients.forEach((command, count) -> shares.put(command,
				(double) count / (count + this.fromScripts.getOrDefault(command, 0L))));
		this.fromScripts.keySet().forEach((command) -> shares.putIfAbsent(command, 0.0));
		return shares;
	}

	private static long sum(Map<String, Long> counts) {
		return counts.values().stream().mapToLong(Long::longValue).sum();
	}

	private void collect(BufferedReader reader) {
		try {
			String line;
			while ((line = reader.readLine()) != null) {
				// +1700000000.123456 [0 127.0.0.1:50000] "evalsha" "..." or [0 lua] "get"
				// "k"
				int open = line.indexOf('[');
				int close = line.indexOf(']', open);
				if (open < 0 || close < 0) {
					continue;
				}
				if (line.contains(END_MARKER)) {
					this.ended.countDown();
					return;
				}
				List<String> arguments = arguments(line.substring(close + 1));
				if (arguments.isEmpty() || (arguments.size() > 1 && this.ignoredKeys.contains(arguments.get(1)))) {
					continue;
				}
				boolean fromScript = line.substring(open + 1, close).endsWith(" lua");
				if (!fromScript) {
					// Written by this thread only
					this.clientCommandsSeen++;
				}
				(fromScript ? this.fromScripts : this.fromClients).merge(arguments.get(0).toLowerCase(Locale.ROOT), 1L,
						Long::sum);
			}
		}
		catch (IOException ex) {
			// Closed by finish() or close(): what was seen is kept
		}
	}

	/** The quoted arguments of a MONITOR line, still escaped, which is enough here. */
	private static List<String> arguments(String text) {
		List<String> arguments = new ArrayList<>();
		Matcher matcher = QUOTED.matcher(text);
		while (matcher.find()) {
			arguments.add(matcher.group(1));
		}
		return arguments;
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// Nothing left to read anyway
		}
	}

}
