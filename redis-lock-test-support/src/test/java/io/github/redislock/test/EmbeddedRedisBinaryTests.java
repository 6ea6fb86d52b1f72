package io.github.redislock.test;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EmbeddedRedisBinary}: the Redis 6.2 fallback shipped in
 * embedded-redis.
 */
class EmbeddedRedisBinaryTests {

	@Test
	void resourceNameFitsTheOperatingSystemAndArchitecture() {
		assertThat(EmbeddedRedisBinary.resourceName("Linux", "amd64")).hasValue("redis-server-6.2.6-v5-linux-amd64");
		assertThat(EmbeddedRedisBinary.resourceName("Linux", "aarch64")).hasValue("redis-server-6.2.7-linux-arm64");
		assertThat(EmbeddedRedisBinary.resourceName("Mac OS X", "x86_64"))
			.hasValue("redis-server-6.2.6-v5-darwin-amd64");
		assertThat(EmbeddedRedisBinary.resourceName("Mac OS X", "aarch64"))
			.hasValue("redis-server-6.2.6-v5-darwin-arm64");
		assertThat(EmbeddedRedisBinary.resourceName("Windows 11", "amd64")).isEmpty();
		assertThat(EmbeddedRedisBinary.resourceName("Linux", "x86")).isEmpty();
	}

	@Test
	void everyKnownBinaryIsOnTheClasspath() {
		ClassLoader loader = getClass().getClassLoader();
		assertThat(loader.getResource(EmbeddedRedisBinary.LINUX_AMD64)).isNotNull();
		assertThat(loader.getResource(EmbeddedRedisBinary.LINUX_ARM64)).isNotNull();
		assertThat(loader.getResource(EmbeddedRedisBinary.DARWIN_AMD64)).isNotNull();
		assertThat(loader.getResource(EmbeddedRedisBinary.DARWIN_ARM64)).isNotNull();
	}

	@Test
	void extractCopiesAnExecutableOncePerJvm() {
		Path binary = EmbeddedRedisBinary.extract();
		assertThat(Files.isExecutable(binary)).isTrue();
		assertThat(EmbeddedRedisBinary.extract()).isSameAs(binary);
	}

	@Test
	void embeddedSettingRunsRedis62OnThisMachine() {
		try (RedisServer server = RedisServer.start(RedisLaunchers.forSetting("embedded"))) {
			assertThat(server.version()).startsWith("6.2.");
			try (RedisCli cli = server.cli()) {
				assertThat(cli.ping()).isEqualTo("PONG");
				assertThat(InfoFields.get(cli.info("server"), "executable")).contains("redis-server-6.2");
			}
			server.kill();
			server.restart();
			try (RedisCli cli = server.cli()) {
				assertThat(cli.ping()).isEqualTo("PONG");
			}
		}
	}

	@Test
	void systemPropertyForcesTheEmbeddedBinary() {
		String previous = System.getProperty(RedisLaunchers.PROPERTY);
		System.setProperty(RedisLaunchers.PROPERTY, "embedded");
		try (RedisServer server = RedisServer.start()) {
			assertThat(server.version()).startsWith("6.2.");
		}
		finally {
			if (previous != null) {
				System.setProperty(RedisLaunchers.PROPERTY, previous);
			}
			else {
				System.clearProperty(RedisLaunchers.PROPERTY);
			}
		}
	}

}
