package io.github.redislock.annotation;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.PropertySource;

import io.github.redislock.DistributedLock;
import io.github.redislock.LockTemplate;
import io.github.redislock.autoconfigure.RedisServerConfiguration;
import io.github.redislock.test.RedisServer;

/**
 * A Spring Boot application with {@link DistributedLock @DistributedLock} beans, shared
 * (and cached by the Spring TestContext framework) by the integration tests. Its Redis
 * server is a bean, so it lives and dies with the context; the connection factory reaches
 * it through {@link DataRedisConnectionDetails}. The beans come from one configuration
 * per theme; {@link LockProbe} reads which locks they hold.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@PropertySource("classpath:io/github/redislock/annotation/locked-services.properties")
@Import({ RedisServerConfiguration.class, KeyFormServicesConfiguration.class, ConcurrentServicesConfiguration.class,
		FailureServicesConfiguration.class, NestedServicesConfiguration.class, TransactionalServicesConfiguration.class,
		CurrentLockServicesConfiguration.class, ReactiveServicesConfiguration.class })
class LockedServicesConfiguration {

	@Bean
	LockProbe lockProbe(RedisServer redisServer, LockTemplate lockTemplate) {
		return new LockProbe(redisServer, lockTemplate);
	}

}
