package io.github.redislock.kotlin

import io.github.redislock.LockTemplate
import io.github.redislock.test.RedisServer
import io.github.redislock.autoconfigure.ReactiveLockAutoConfiguration
import io.github.redislock.autoconfigure.RedisServerConfiguration
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.ImportAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Import

/**
 * A Spring Boot application with the Kotlin [StockService], shared by the coroutine
 * tests. Its Redis server is a bean, so it lives and dies with the context; the
 * connection factory reaches it through [DataRedisConnectionDetails]. Only the
 * auto-configuration these tests need: that of the whole test classpath (web, JDBC,
 * actuator, Spring Integration) would start far more than they use.
 *
 * @author redis-lock
 */
@SpringBootConfiguration
@ImportAutoConfiguration(DataRedisAutoConfiguration::class, RedisLockAutoConfiguration::class,
		ReactiveLockAutoConfiguration::class)
@Import(RedisServerConfiguration::class, StockService::class)
class CoroutineServicesConfiguration {

	@Bean
	fun heldLocks(redisServer: RedisServer, lockTemplate: LockTemplate) = HeldLocks(redisServer, lockTemplate)

}
