package io.github.redislock.fencing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

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

	@AfterEach
	void closeFactories() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

}
