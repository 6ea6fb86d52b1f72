package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Last resort against leftovers: a JVM shutdown hook that kills every process and deletes
 * every directory still registered here. Normal code unregisters them in {@code close()}.
 */
final class ShutdownCleanup {

	private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(5);

	private static final Set<Process> processes = ConcurrentHashMap.newKeySet();

	private static final Set<Path> directories = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(ShutdownCleanup::cleanUp, "redis-lock-test-cleanup"));
	}

	private ShutdownCleanup() {
	}

	/**
	 * Kills the process at JVM shutdown unless it is unregistered before.
	 * @param process the process
	 */
	static void register(Process process) {
		processes.add(process);
	}

	/**
	 * Forgets a process registered with {@link #register(Process)}.
	 * @param process the process
	 */
	static void unregister(Process process) {
		processes.remove(process);
	}

	/**
	 * Creates a temporary directory that is deleted at JVM shutdown unless
	 * {@link #deleteDirectory(Path) deleted} before.
	 * @return the directory
	 */
	static Path createDirectory() {
		try {
			Path directory = Files.createTempDirectory("redis-lock-test-");
			registerDirectory(directory);
			return directory;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a temporary directory", ex);
		}
	}

	/**
	 * Deletes the directory and its content at JVM shutdown unless it is unregistered
	 * before.
	 * @param directory the directory
	 */
	static void registerDirectory(Path directory) {
		directories.add(directory);
	}

	/**
	 * Deletes the directory and its content now and forgets it.
	 * @param directory the directory
	 */
	static void deleteDirectory(Path directory) {
		directories.remove(directory);
		deleteRecursively(directory);
	}

	private static void cleanUp() {
		// SIGKILL also ends processes stopped by SIGSTOP, so no SIGCONT is needed here
		processes.forEach(Process::destroyForcibly);
		// Wait a little so that nothing is left running once this JVM is gone
		long deadline = System.nanoTime() + EXIT_TIMEOUT.toNanos();
		for (Process process : processes) {
			try {
				process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		directories.forEach(ShutdownCleanup::deleteQuietly);
	}

	private static void deleteQuietly(Path directory) {
		try {
			deleteRecursively(directory);
		}
		catch (RuntimeException ex) {
			// Nothing more can be done while the JVM shuts down
		}
	}

	private static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(path);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete " + directory, ex);
		}
	}

}
