package io.github.redislock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import io.github.redislock.test.JavaProcess;

/**
 * The other client of the waiters scenario, in its own JVM so that its threads and
 * connections are not counted with the waiters': warms up, then, round after round, takes
 * the key with a fixed lease (no renewal traffic while the waiters are measured) when
 * told to, says {@value #HELD} and the round, and releases when told to, printing the
 * wall-clock time in microseconds just before and {@value #RELEASED} and the round. It is
 * told by files appearing in a directory, {@code <round>.hold}, {@code <round>.release}
 * and {@code stop}: watching files rather than Redis keeps it silent in Redis while it
 * holds. The waiters' side drives it through a {@link Control}.
 * <p>
 * Arguments: control directory, then those of a {@link ScenarioContext}.
 */
public final class LockHolder {

	static final String HELD = "HOLDER HELD ";

	static final String RELEASED = "HOLDER RELEASED ";

	private static final String STOP = "stop";

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private LockHolder() {
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		Path directory = Path.of(arguments.get(0));
		ScenarioContext context = ScenarioContext.fromArguments(arguments.subList(1, arguments.size()));
		try (LockClient client = context.openClient()) {
			WaitersScenario.warmUp(client, context.settings().warmup(), "holder");
			for (int round = 0; awaitFile(directory, round + ".hold"); round++) {
				LockClient.Release release = client.acquire(WaitersScenario.KEY, Duration.ofMinutes(5));
				System.out.println(HELD + round + " .");
				awaitFile(directory, round + ".release");
				long releasedAt = epochMicros();
				release.release();
				// The time first, so that the line is whole once its end has arrived
				System.out.println(releasedAt + " " + RELEASED + round + " .");
			}
		}
		System.exit(0);
	}

	/**
	 * Poll for the file every millisecond.
	 * @return {@code false} if told to stop instead
	 */
	private static boolean awaitFile(Path directory, String name) throws InterruptedException {
		Path file = directory.resolve(name);
		Path stop = directory.resolve(STOP);
		while (!Files.exists(file)) {
			if (Files.exists(stop)) {
				return false;
			}
			Thread.sleep(1);
		}
		return true;
	}

	static long epochMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
	}

	/**
	 * A {@link LockHolder} in its own JVM, told what to do round by round.
	 */
	static final class Control implements AutoCloseable {

		private final Path directory;

		private final JavaProcess process;

		private Control(Path directory, JavaProcess process) {
			this.directory = directory;
			this.process = process;
		}

		static Control start(ScenarioContext context) throws IOException {
			Path directory = Files.createTempDirectory("waiters");
			List<String> arguments = new ArrayList<>(List.of(directory.toString()));
			arguments.addAll(context.toArguments());
			return new Control(directory, JavaProcess.start(LockHolder.class, arguments.toArray(String[]::new)));
		}

		/** Have the holder take the key, and wait until it holds it. */
		void hold(int round) {
			signal(round + ".hold");
			await(HELD + round + " .");
		}

		/**
		 * Have the holder release the key, and wait until it did.
		 * @return the wall-clock time, in microseconds, just before it released
		 */
		long release(int round) {
			signal(round + ".release");
			String released = " " + RELEASED + round + " .";
			await(released);
			String output = this.process.output();
			int end = output.indexOf(released);
			return Long.parseLong(output.substring(output.lastIndexOf('\n', end) + 1, end).strip());
		}

		private void signal(String name) {
			try {
				Files.createFile(this.directory.resolve(name));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		/** Wait for its output, and if it fails instead, say what it died of. */
		private void await(String text) {
			try {
				this.process.awaitOutput(text, TIMEOUT);
			}
			catch (IllegalStateException ex) {
				throw new IllegalStateException("The holder JVM failed: " + Failures.fromOutput(this.process.output()),
						ex);
			}
		}

		@Override
		public void close() throws IOException {
			try {
				signal(STOP);
				this.process.waitFor(TIMEOUT);
			}
			finally {
				this.process.close();
				try (Stream<Path> files = Files.list(this.directory)) {
					for (Path file : files.toList()) {
						Files.deleteIfExists(file);
					}
				}
				Files.deleteIfExists(this.directory);
			}
		}

	}

}
