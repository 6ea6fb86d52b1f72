package io.github.redislock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * The other client of the waiters scenario, in its own JVM so that its threads and
 * connections are not counted with the waiters': warms up, takes the key with a fixed
 * lease (no renewal traffic while the waiters are measured), says {@value #HELD}, and
 * releases when the release file appears, printing the wall-clock time in microseconds
 * just before. Watching a file rather than Redis keeps it silent in Redis while it holds.
 * <p>
 * Arguments: release file, then those of a {@link ScenarioContext}.
 */
public final class LockHolder {

	static final String HELD = "HOLDER HELD";

	static final String RELEASED = "HOLDER RELEASED AT ";

	private LockHolder() {
	}

	public static void main(String[] args) throws Exception {
		List<String> arguments = Arrays.asList(args);
		Path releaseFile = Path.of(arguments.get(0));
		ScenarioContext context = ScenarioContext.fromArguments(arguments.subList(1, arguments.size()));
		try (LockClient client = context.openClient()) {
			WaitersScenario.warmUp(client, context.settings().warmup(), "holder");
			LockClient.Release release = client.acquire(WaitersScenario.KEY, Duration.ofMinutes(5));
			System.out.println(HELD);
			while (!Files.exists(releaseFile)) {
				Thread.sleep(1);
			}
			long releasedAt = epochMicros();
			release.release();
			System.out.println(RELEASED + releasedAt + " .");
		}
		System.exit(0);
	}

	static long epochMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
	}

}
