package io.github.redislock.samples.flashsale;

import org.springframework.test.context.DynamicPropertyRegistry;

import io.github.redislock.test.RedisServer;

/**
 * One Redis for the cached test contexts of this JVM. Spring keeps those contexts until
 * the JVM exits, so the server lives as long; test support's shutdown hook stops it then.
 */
final class TestRedis {

	static final RedisServer server = RedisServer.start();

	private TestRedis() {
	}

	static void register(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", server::host);
		registry.add("spring.data.redis.port", server::port);
	}

}
