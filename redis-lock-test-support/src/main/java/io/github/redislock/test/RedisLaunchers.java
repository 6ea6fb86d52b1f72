package io.github.redislock.test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chooses where Redis servers come from. Unless the {@value #PROPERTY} system property
 * says otherwise, in this order: {@code redis-server} on the {@code PATH}, the binary
 * shipped in embedded-redis, a Testcontainers container when a Docker engine answers. The
 * property takes {@code embedded}, {@code path}, {@code testcontainers} or the path of a
 * {@code redis-server} binary.
 */
final class RedisLaunchers {

	static final String PROPERTY = "redislock.test.redis";

	static final String INSTALL_HINT = "No Redis server found for tests. Install one on the PATH "
			+ "(apt-get install redis-server, or brew install redis), or add the test dependency "
			+ "com.github.codemonstur:embedded-redis, or run a Docker engine and add org.testcontainers:testcontainers";

	private static final String TESTCONTAINERS_CLASS = "org.testcontainers.DockerClientFactory";

	// Resolving can be slow (asking Docker), so it happens once per setting
	private static final Map<String, RedisLauncher> launchers = new ConcurrentHashMap<>();

	private RedisLaunchers() {
	}

	/**
	 * Returns the launcher chosen by the {@value #PROPERTY} system property.
	 * @return the launcher
	 */
	static RedisLauncher fromSystemProperty() {
		return forSetting(System.getProperty(PROPERTY));
	}

	/**
	 * Returns the launcher for a value of the {@value #PROPERTY} system property.
	 * @param setting the value, {@code null} or blank for the default order
	 * @return the launcher
	 * @throws IllegalStateException if no Redis can be found that way
	 */
	static RedisLauncher forSetting(String setting) {
		String key = (setting != null) ? setting.trim() : "";
		return launchers.computeIfAbsent(key, RedisLaunchers::resolve);
	}

	private static RedisLauncher resolve(String setting) {
		switch (setting) {
			case "":
				return automatic();
			case "embedded":
				return binary(EmbeddedRedisBinary.extract());
			case "path":
				return onPath().map(RedisLaunchers::binary)
					.orElseThrow(() -> new IllegalStateException("No redis-server on the PATH. " + INSTALL_HINT));
			case "testcontainers":
				if (!isTestcontainersPresent()) {
					throw new IllegalStateException("Testcontainers is not on the classpath. " + INSTALL_HINT);
				}
				return ContainerRedis.launcher();
			default:
				Path executable = Path.of(setting);
				if (!Files.isRegularFile(executable) || !Files.isExecutable(executable)) {
					throw new IllegalStateException(
							PROPERTY + "=" + setting + " is not an executable redis-server binary");
				}
				return binary(executable);
		}
	}

	private static RedisLauncher automatic() {
		Optional<Path> onPath = onPath();
		if (onPath.isPresent()) {
			return binary(onPath.get());
		}
		if (EmbeddedRedisBinary.isAvailable()) {
			return binary(EmbeddedRedisBinary.extract());
		}
		// Only touch Testcontainers classes once they are known to be loadable
		if (isTestcontainersPresent() && ContainerRedis.isDockerAvailable()) {
			return ContainerRedis.launcher();
		}
		throw new IllegalStateException(INSTALL_HINT);
	}

	/**
	 * Searches the {@code PATH} entries for an executable {@code redis-server} file.
	 * @return the binary, or empty if there is none
	 */
	static Optional<Path> onPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		for (String entry : path.split(File.pathSeparator)) {
			if (entry.isEmpty()) {
				continue;
			}
			Path candidate = Path.of(entry, "redis-server");
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return Optional.of(candidate);
			}
		}
		return Optional.empty();
	}

	private static RedisLauncher binary(Path executable) {
		return new RedisLauncher() {

			@Override
			public RedisBackend launch(List<String> extraConfigArgs) {
				return LocalRedisProcess.start(executable, extraConfigArgs);
			}

			@Override
			public RedisBackend launch(Path directory, List<String> args) {
				return LocalRedisProcess.start(executable, directory, args);
			}

			@Override
			public String description() {
				return executable.toString();
			}

		};
	}

	private static boolean isTestcontainersPresent() {
		try {
			Class.forName(TESTCONTAINERS_CLASS, false, RedisLaunchers.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

}
