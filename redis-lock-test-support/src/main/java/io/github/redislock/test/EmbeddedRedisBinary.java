package io.github.redislock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Optional;

/**
 * The Redis 6.2 {@code redis-server} binaries shipped as resources in the
 * {@code com.github.codemonstur:embedded-redis} jar, copied out to an executable
 * temporary file once per JVM.
 */
final class EmbeddedRedisBinary {

	// Resource names in embedded-redis 1.4.3 (the 6.2.6-v5 Linux binary reports 6.2.11)
	static final String LINUX_AMD64 = "redis-server-6.2.6-v5-linux-amd64";

	static final String LINUX_ARM64 = "redis-server-6.2.7-linux-arm64";

	static final String DARWIN_AMD64 = "redis-server-6.2.6-v5-darwin-amd64";

	static final String DARWIN_ARM64 = "redis-server-6.2.6-v5-darwin-arm64";

	private static Path extracted;

	private EmbeddedRedisBinary() {
	}

	/**
	 * Returns the resource name of the binary for an operating system and architecture.
	 * @param osName the value of {@code os.name}
	 * @param osArch the value of {@code os.arch}
	 * @return the resource name, or empty if none fits
	 */
	static Optional<String> resourceName(String osName, String osArch) {
		String os = osName.toLowerCase(Locale.ROOT);
		String arch = osArch.toLowerCase(Locale.ROOT);
		boolean amd64 = arch.equals("amd64") || arch.equals("x86_64");
		boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
		if (os.contains("linux")) {
			return amd64 ? Optional.of(LINUX_AMD64) : arm64 ? Optional.of(LINUX_ARM64) : Optional.empty();
		}
		if (os.contains("mac") || os.contains("darwin")) {
			return amd64 ? Optional.of(DARWIN_AMD64) : arm64 ? Optional.of(DARWIN_ARM64) : Optional.empty();
		}
		return Optional.empty();
	}

	/**
	 * Returns whether the binary for this machine is on the classpath.
	 * @return whether {@link #extract()} can succeed
	 */
	static boolean isAvailable() {
		return resourceName(System.getProperty("os.name"), System.getProperty("os.arch"))
			.map((name) -> classLoader().getResource(name) != null)
			.orElse(false);
	}

	/**
	 * Copies the binary for this machine to an executable temporary file, the first time
	 * only, and returns it.
	 * @return the executable
	 * @throws IllegalStateException if there is no binary for this machine
	 */
	static synchronized Path extract() {
		if (extracted == null) {
			String osName = System.getProperty("os.name");
			String osArch = System.getProperty("os.arch");
			String name = resourceName(osName, osArch).orElseThrow(() -> new IllegalStateException(
					"embedded-redis ships no redis-server for " + osName + " " + osArch));
			extracted = copy(name);
		}
		return extracted;
	}

	private static Path copy(String name) {
		try (InputStream input = classLoader().getResourceAsStream(name)) {
			if (input == null) {
				throw new IllegalStateException(
						name + " is not on the classpath: add com.github.codemonstur:embedded-redis 1.4.3");
			}
			Path file = Files.createTempFile(name + "-", "");
			file.toFile().deleteOnExit();
			Files.copy(input, file, StandardCopyOption.REPLACE_EXISTING);
			Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not copy " + name + " out of the classpath", ex);
		}
	}

	private static ClassLoader classLoader() {
		ClassLoader loader = Thread.currentThread().getContextClassLoader();
		return (loader != null) ? loader : EmbeddedRedisBinary.class.getClassLoader();
	}

}
