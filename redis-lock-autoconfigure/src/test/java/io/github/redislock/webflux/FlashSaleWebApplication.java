package io.github.redislock.webflux;

import java.time.Duration;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import io.github.redislock.autoconfigure.RedisServerConfiguration;

/**
 * A WebFlux application selling flash-sale stock, on its own Redis server: a bean, so
 * that it lives and dies with the context, reached through
 * {@link DataRedisConnectionDetails}. The test runs it as a reactive web application, as
 * WebMVC is on the test classpath too.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ RedisServerConfiguration.class, FlashSaleController.class })
class FlashSaleWebApplication {

	/** Between a purchase's check and its write: see {@link ReactiveInventory}. */
	static final Duration THINK_TIME = Duration.ofMillis(5);

	@Bean
	ReactiveInventory reactiveInventory(ReactiveStringRedisTemplate redis) {
		return new ReactiveInventory(redis, THINK_TIME);
	}

	@Bean
	LockedCheckout lockedCheckout(ReactiveInventory inventory) {
		return new LockedCheckout(inventory);
	}

}
