package io.github.redislock.fencing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fenced writes on a single Redis.
 */
@RedisTest
class FencedRedisTemplateTests extends FencedRedisContract {

	private final RedisServer server;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	FencedRedisTemplateTests(RedisServer server) {
		this.server = server;
	}

	@Override
	protected RedisConnectionFactory connectionFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	@Override
	protected List<String> keys() {
		return List.of("stock:1", "{product:2}:stock", "counter:3", "stock:4", "{product:5}:stock", "counter:6");
	}

	/**
	 * An increment Redis ran whose answer was lost with its connection: Lettuce sends it
	 * again after reconnecting, and it must count once.
	 */
	@Test
	void incrementSentAgainAfterAReconnectCountsOnce() throws Exception {
		try (FaultProxy proxy = FaultProxy.start(this.server.host(), this.server.port());
				RedisCli cli = this.server.cli()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
			factory.afterPropertiesSet();
			factory.start();
			this.factories.add(factory);
			FencedRedisTemplate fenced = new FencedRedisTemplate(factory);
			assertThat(fenced.increment("counter:replayed", 1, 1)).isEqualTo(1);
			proxy.holdReplies();
			CompletableFuture<Long> increment = CompletableFuture
				.supplyAsync(() -> fenced.increment("counter:replayed", 1, 1));
			// Redis ran it; its answer waits in the proxy, and is lost with the
			// connection.
			await().atMost(Duration.ofSeconds(10)).until(() -> "2".equals(cli.get("counter:replayed")));
			proxy.endConnections();
			proxy.pass();
			assertThat(increment.get(20, TimeUnit.SECONDS)).isEqualTo(2);
			assertThat(cli.get("counter:replayed")).isEqualTo("2");
		}
	}

	@AfterEach
	void closeFactories() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

}
