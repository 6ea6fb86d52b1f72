package io.github.redislock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.redislock.test.RedisCli;

/**
 * The instructions redis-server runs in user space per uncontended lock + release,
 * counted exactly by Valgrind's callgrind, for each implementation beside the raw floor:
 * the profile behind the uncontended scenario's Redis CPU ratio, without its noise. The
 * kernel's share of that CPU (reading, writing and waiting on the sockets) is about the
 * same for every implementation that makes two round trips, and is not counted here.
 * <p>
 * Needs {@code valgrind} and {@code redis-server} on the {@code PATH}. Run from the
 * repository's root, after the build that packages the benchmarks:
 * {@code java -cp benchmarks/target/redis-lock-benchmarks.jar io.github.redislock.benchmarks.RedisInstructions}.
 * System properties: {@code bench.implementations} (default {@code raw-floor,redis-lock},
 * the first one being what the others are compared with), {@code bench.operations}
 * (measured lock + release pairs, default 5000) and {@code bench.warmupOperations}
 * (default 20000, run before counting, so that the client sends what it sends once warm).
 * Redis runs about 50 times slower under callgrind, so the whole takes a minute or two.
 */
public final class RedisInstructions {

	private RedisInstructions() {
	}

	public static void main(String[] args) throws Exception {
		List<Implementation> implementations = Stream
			.of(System.getProperty("bench.implementations", "raw-floor,redis-lock").split(","))
			.map(String::trim)
			.map(Implementation::fromId)
			.toList();
		int operations = Integer.getInteger("bench.operations", 5000);
		int warmup = Integer.getInteger("bench.warmupOperations", 20_000);
		Path directory = Files.createTempDirectory("redis-callgrind");
		int port = freePort();
		Process redis = new ProcessBuilder("valgrind", "--tool=callgrind",
				"--callgrind-out-file=" + directory.resolve("callgrind.%p"), "redis-server", "--port",
				Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
			.redirectErrorStream(true)
			.redirectOutput(directory.resolve("valgrind.log").toFile())
			.start();
		Map<Implementation, Double> perOperation = new LinkedHashMap<>();
		try (RedisCli cli = awaitServer(port)) {
			for (Implementation implementation : implementations) {
				cli.flushAll();
				try (LockClient client = implementation.open("127.0.0.1", port)) {
					String prefix = "instructions:" + implementation.id() + ":";
					run(client, prefix + "warmup:", warmup);
					callgrind(redis, "-z");
					run(client, prefix, operations);
					callgrind(redis, "-d");
				}
				perOperation.put(implementation, (double) summary(newestDump(directory)) / operations);
			}
		}
		finally {
			redis.destroy();
			redis.waitFor(30, TimeUnit.SECONDS);
		}
		System.out.println(table(perOperation));
	}

	private static void run(LockClient client, String prefix, int operations) {
		for (int i = 0; i < operations; i++) {
			client.acquire(prefix + i).release();
		}
	}

	private static String table(Map<Implementation, Double> perOperation) {
		double floor = perOperation.values().iterator().next();
		Implementation first = perOperation.keySet().iterator().next();
		MarkdownTable table = new MarkdownTable("Implementation",
				"redis-server instructions per lock + release (user space)", "vs " + first.id());
		perOperation.forEach((implementation, instructions) -> table.row(implementation.title(),
				String.format(Locale.ROOT, "%,.0f", instructions),
				String.format(Locale.ROOT, "%.2fx", instructions / floor)));
		return table.markdown();
	}

	/** Zero ({@code -z}) or dump ({@code -d}) the server's counters. */
	private static void callgrind(Process redis, String action) throws IOException, InterruptedException {
		Process control = new ProcessBuilder("callgrind_control", action, Long.toString(redis.pid()))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		if (control.waitFor() != 0) {
			throw new IllegalStateException("callgrind_control " + action + " failed");
		}
	}

	private static Path newestDump(Path directory) throws IOException {
		try (Stream<Path> files = Files.list(directory)) {
			return files.filter((file) -> file.getFileName().toString().matches("callgrind\\.\\d+\\.\\d+"))
				.max(Comparator.comparingInt(RedisInstructions::dumpNumber))
				.orElseThrow(() -> new IllegalStateException("callgrind wrote no dump in " + directory));
		}
	}

	private static int dumpNumber(Path file) {
		String name = file.getFileName().toString();
		return Integer.parseInt(name.substring(name.lastIndexOf('.') + 1));
	}

	/** The instructions a dump counted: its {@code summary:} line. */
	private static long summary(Path dump) throws IOException {
		List<String> found = new ArrayList<>();
		try (Stream<String> lines = Files.lines(dump)) {
			lines.filter((line) -> line.startsWith("summary: ")).forEach(found::add);
		}
		if (found.isEmpty()) {
			throw new IllegalStateException("No summary in " + dump);
		}
		return Long.parseLong(found.get(0).substring("summary: ".length()).trim());
	}

	private static RedisCli awaitServer(int port) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			try {
				RedisCli cli = new RedisCli("127.0.0.1", port);
				cli.ping();
				return cli;
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() - deadline > 0) {
					throw new IllegalStateException("redis-server under valgrind did not answer on port " + port, ex);
				}
				Thread.sleep(200);
			}
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
