package io.github.redislock.autoconfigure;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import io.github.redislock.test.RedisServer;

/**
 * A Redis server of a test application's own, {@linkplain Import imported} by the
 * application: a bean, so that it lives and dies with the context, and the
 * {@link DataRedisConnectionDetails} that point Spring Boot's Redis auto-configuration at
 * it. Not a {@code @Configuration}, so that nothing picks it up unasked.
 */
public final class RedisServerConfiguration {

	@Bean(destroyMethod = "close")
	static RedisServer redisServer() {
		return RedisServer.start();
	}

	@Bean
	static DataRedisConnectionDetails redisConnectionDetails(RedisServer redisServer) {
		return new DataRedisConnectionDetails() {

			@Override
			public Standalone getStandalone() {
				return Standalone.of(redisServer.host(), redisServer.port());
			}

		};
	}

}
