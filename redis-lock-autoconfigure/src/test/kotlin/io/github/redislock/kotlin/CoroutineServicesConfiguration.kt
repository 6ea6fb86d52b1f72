package io.github.redislock.kotlin

import io.github.redislock.LockTemplate
import io.github.redislock.test.RedisServer
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Import

/**
 * A Spring Boot application with the Kotlin [StockService], shared by the coroutine
 * tests. Its Redis server is a bean, so it lives and dies with the context; the
 * connection factory reaches it through [DataRedisConnectionDetails].
 *
 * @author redis-lock
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StockService::class)
class CoroutineServicesConfiguration {

	@Bean
	fun heldLocks(redisServer: RedisServer, lockTemplate: LockTemplate) = HeldLocks(redisServer, lockTemplate)

	companion object {

		@JvmStatic
		@Bean(destroyMethod = "close")
		fun redisServer(): RedisServer = RedisServer.start()

		@JvmStatic
		@Bean
		fun redisConnectionDetails(redisServer: RedisServer): DataRedisConnectionDetails =
			object : DataRedisConnectionDetails {
				override fun getStandalone() = DataRedisConnectionDetails.Standalone.of(redisServer.host(),
						redisServer.port())
			}

	}

}
