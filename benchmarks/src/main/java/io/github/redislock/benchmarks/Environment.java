package io.github.redislock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import reactor.core.publisher.Mono;

import org.springframework.integration.redis.util.RedisLockRegistry;

import io.github.redislock.LockTemplate;

/**
 * Where and with what the figures were taken, for the head of the report.
 *
 * @param date when the run ended, UTC
 * @param java the Java runtime
 * @param redis the Redis server version
 * @param cores the processors available to the JVM
 * @param machine operating system and CPU model
 * @param libraries the jars of the implementations
 * @param revision the commit of redis-lock measured
 * @param settings durations and sizes
 */
record Environment(String date, String java, String redis, int cores, String machine, String libraries, String revision,
		BenchmarkSettings settings) {

	static Environment of(String redisVersion, BenchmarkSettings settings) {
		String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
		String java = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
		String machine = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
				+ System.getProperty("os.arch") + cpuModel();
		String libraries = String.join(", ", jar(LockTemplate.class), jar(Redisson.class), jar(RedisLockRegistry.class),
				jar(RedisClient.class), jar(Mono.class));
		return new Environment(date, java, redisVersion, Runtime.getRuntime().availableProcessors(), machine, libraries,
				System.getProperty("bench.revision", gitRevision()), settings);
	}

	/**
	 * The commit checked out where the benchmarks were built, and whether the engine's
	 * sources differ from it; git is asked not to take its optional locks.
	 */
	private static String gitRevision() {
		Path root = Benchmarks.moduleDirectory().getParent();
		String commit = git(root, "rev-parse", "--short", "HEAD");
		if (commit == null) {
			return "unknown";
		}
		String changed = git(root, "diff", "--name-only", "HEAD", "--", "redis-lock-autoconfigure/src/main");
		return (changed == null || changed.isEmpty()) ? commit : commit + " with uncommitted engine changes";
	}

	private static @Nullable String git(Path directory, String... arguments) {
		List<String> command = new ArrayList<>(List.of("git", "-C", directory.toString()));
		command.addAll(List.of(arguments));
		try {
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
			builder.environment().put("GIT_OPTIONAL_LOCKS", "0");
			Process process = builder.start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			return (process.waitFor() == 0) ? output : null;
		}
		catch (IOException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	private static String jar(Class<?> type) {
		String name = Path.of(type.getProtectionDomain().getCodeSource().getLocation().getPath())
			.getFileName()
			.toString();
		return name.endsWith(".jar") ? name.substring(0, name.length() - 4) : type.getPackageName();
	}

	private static String cpuModel() {
		try {
			List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
			return lines.stream()
				.filter((line) -> line.startsWith("model name"))
				.findFirst()
				.map((line) -> ", " + line.substring(line.indexOf(':') + 1).trim())
				.orElse("");
		}
		catch (IOException | RuntimeException ex) {
			return "";
		}
	}

}
