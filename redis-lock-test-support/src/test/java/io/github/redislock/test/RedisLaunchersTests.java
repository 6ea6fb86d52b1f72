package io.github.redislock.test;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link RedisLaunchers}.
 */
class RedisLaunchersTests {

	@Test
	void defaultPrefersRedisServerOnThePath() {
		Path onPath = RedisLaunchers.onPath().orElse(null);
		assumeTrue(onPath != null, "no redis-server on the PATH");
		assertThat(RedisLaunchers.forSetting(null).description()).isEqualTo(onPath.toString());
		assertThat(RedisLaunchers.forSetting("path").description()).isEqualTo(onPath.toString());
	}

	@Test
	void embeddedSettingUsesTheExtractedBinary() {
		assertThat(RedisLaunchers.forSetting("embedded").description())
			.isEqualTo(EmbeddedRedisBinary.extract().toString());
	}

	@Test
	void pathSettingUsesThatBinary() {
		String binary = EmbeddedRedisBinary.extract().toString();
		try (RedisServer server = RedisServer.start(RedisLaunchers.forSetting(binary))) {
			assertThat(server.version()).startsWith("6.2.");
		}
	}

	@Test
	void settingThatIsNoExecutableFailsWithTheProperty() {
		assertThatIllegalStateException().isThrownBy(() -> RedisLaunchers.forSetting("/no/such/redis-server"))
			.withMessageContaining("redislock.test.redis=/no/such/redis-server");
	}

	@Test
	void installHintSaysHowToGetRedis() {
		assertThat(RedisLaunchers.INSTALL_HINT).contains("apt-get install redis-server")
			.contains("brew install redis")
			.contains("embedded-redis");
	}

}
