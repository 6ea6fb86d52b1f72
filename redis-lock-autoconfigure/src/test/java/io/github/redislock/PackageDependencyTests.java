package io.github.redislock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layers of the package tree, read from the compiled classes: the root package (the
 * API, the template and the observer SPI) names nothing of the engine, which shows the
 * rest of the library a single public type; the annotation support and the health,
 * metrics and endpoint support reach locks through the root's interfaces only.
 * <p>
 * A class file names every type it uses in its constant pool, as
 * {@code io/github/redislock/engine/...}, so a search of its bytes finds any use, whether
 * in a signature, a field, a cast or a method body; Javadoc leaves nothing there.
 */
class PackageDependencyTests {

	private static final String ENGINE = "io/github/redislock/engine/";

	private static final String TEMPLATE = "io/github/redislock/LockTemplate";

	@Test
	void rootPackageUsesNothingOfTheEngine() {
		assertThat(classFiles("")).isNotEmpty()
			.allSatisfy((file) -> assertThat(mentions(file, ENGINE))
				.as("%s uses a type of the engine package", file.getFileName())
				.isFalse());
	}

	@Test
	void engineHasExactlyOnePublicTopLevelType() {
		List<String> publicTypes = classFiles("engine").stream()
			.map((file) -> file.getFileName().toString())
			.filter((name) -> !name.contains("$") && !name.equals("package-info.class"))
			.map((name) -> "io.github.redislock.engine." + name.substring(0, name.length() - ".class".length()))
			.filter((name) -> Modifier.isPublic(load(name).getModifiers()))
			.toList();
		assertThat(publicTypes).containsExactly("io.github.redislock.engine.RedisLockEngine");
	}

	@Test
	void annotationSupportNeedsOnlyLockOperations() {
		assertThat(classFiles("annotation")).isNotEmpty()
			.allSatisfy((file) -> assertThat(mentions(file, ENGINE) || mentions(file, TEMPLATE))
				.as("%s uses the engine or LockTemplate", file.getFileName())
				.isFalse());
	}

	@Test
	void fencedWritesNeedATokenNotTheEngine() {
		assertThat(classFiles("fencing")).isNotEmpty()
			.allSatisfy((file) -> assertThat(mentions(file, ENGINE) || mentions(file, TEMPLATE))
				.as("%s uses the engine or LockTemplate", file.getFileName())
				.isFalse());
	}

	@Test
	void springIntegrationSupportNeedsOnlyLockOperations() {
		assertThat(classFiles("integration")).isNotEmpty()
			.allSatisfy((file) -> assertThat(mentions(file, ENGINE) || mentions(file, TEMPLATE))
				.as("%s uses the engine or LockTemplate", file.getFileName())
				.isFalse());
	}

	@Test
	void healthMetricsAndEndpointReadOnlyLockDiagnostics() {
		Stream.of("health", "metrics", "actuate/endpoint")
			.flatMap((pkg) -> classFiles(pkg).stream())
			.forEach((file) -> assertThat(mentions(file, ENGINE) || mentions(file, TEMPLATE))
				.as("%s uses the engine or LockTemplate", file.getFileName())
				.isFalse());
	}

	/** The class files compiled into a package of the library, not its sub-packages. */
	private static List<Path> classFiles(String pkg) {
		Path root = mainClasses().resolve("io/github/redislock").resolve(pkg);
		try (Stream<Path> files = Files.list(root)) {
			return files.filter((file) -> file.toString().endsWith(".class")).sorted().toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Path mainClasses() {
		try {
			Path location = Path.of(LockTemplate.class.getProtectionDomain().getCodeSource().getLocation().toURI());
			assertThat(location).as("the library's classes, compiled into a directory").isDirectory();
			return location;
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static boolean mentions(Path classFile, String name) {
		try {
			// ISO-8859-1 maps each byte to one char, so the search is on the raw bytes.
			return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1).contains(name);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Class<?> load(String name) {
		try {
			return Class.forName(name, false, PackageDependencyTests.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
