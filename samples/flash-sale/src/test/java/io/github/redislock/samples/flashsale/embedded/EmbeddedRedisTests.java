package io.github.redislock.samples.flashsale.embedded;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redislock.samples.flashsale.FlashSaleApplication;
import io.github.redislock.samples.flashsale.Inventory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded default, where no Redis answers.
 */
class EmbeddedRedisTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	@Test
	void startsARedisWhereNoneAnswersAndStopsItWithTheApplication() throws IOException {
		int silentPort = freePort();
		int embeddedPort;
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(FlashSaleApplication.class)
			.web(WebApplicationType.NONE)
			.run("--spring.data.redis.port=" + silentPort, "--flash-sale.report-cron=-",
					"--spring.main.banner-mode=off")) {
			embeddedPort = context.getEnvironment().getRequiredProperty("spring.data.redis.port", Integer.class);
			assertThat(embeddedPort).isNotEqualTo(silentPort);
			assertThat(RedisPing.answers("127.0.0.1", embeddedPort, TIMEOUT)).isTrue();
			Inventory inventory = context.getBean(Inventory.class);
			inventory.restock("embedded", 3);
			assertThat(inventory.find("embedded"))
				.hasValueSatisfying((product) -> assertThat(product.stock()).isEqualTo(3));
		}
		assertThat(RedisPing.answers("127.0.0.1", embeddedPort, TIMEOUT)).isFalse();
	}

	@Test
	void pingDoesNotTakeASilentListenerForRedis() throws IOException {
		try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			assertThat(RedisPing.answers("127.0.0.1", silent.getLocalPort(), Duration.ofMillis(200))).isFalse();
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
