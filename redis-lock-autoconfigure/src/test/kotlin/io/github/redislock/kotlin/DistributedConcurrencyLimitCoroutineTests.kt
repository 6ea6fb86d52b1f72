package io.github.redislock.kotlin

import io.github.redislock.DistributedConcurrencyLimit
import io.github.redislock.DistributedLock.OnFailure
import io.github.redislock.LockRequest
import io.github.redislock.LockTemplate
import io.github.redislock.ReactiveCurrentLock
import io.github.redislock.autoconfigure.ReactiveLockAutoConfiguration
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration
import io.github.redislock.autoconfigure.RedisServerConfiguration
import io.github.redislock.test.RedisServer
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.reactive.awaitSingle
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.ImportAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.context.annotation.Import
import org.springframework.stereotype.Service
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * Kotlin `suspend` functions under `@DistributedConcurrencyLimit` on a real Redis: no
 * more coroutines than the limit run at once, each reading the fencing token of its
 * permit from its coroutine, and SKIP applies when the limit is held elsewhere.
 *
 * @author redis-lock
 */
@SpringBootTest(classes = [DistributedConcurrencyLimitCoroutineTests.Application::class])
class DistributedConcurrencyLimitCoroutineTests {

	@Autowired
	private lateinit var quota: QuotaService

	@Autowired
	private lateinit var redis: RedisServer

	@Autowired
	private lateinit var locks: LockTemplate

	@BeforeEach
	fun reset() {
		this.redis.cli().use { it.flushAll() }
	}

	@Test
	fun noMoreCoroutinesThanTheLimitRunAtOnce(): Unit = runBlocking {
		val gate = CompletableDeferred<Unit>()
		val quota = this@DistributedConcurrencyLimitCoroutineTests.quota
		val calls = (1..5).map { async(Dispatchers.Default) { quota.call("acme", gate) } }
		await().until { quota.inside() == 2 && holders("quota:acme") == 2 }
		gate.complete(Unit)
		val tokens = calls.awaitAll()
		assertThat(quota.peak()).isEqualTo(2)
		assertThat(tokens).hasSize(5).doesNotHaveDuplicates().allSatisfy { assertThat(it).isPositive() }
		assertThat(holders("quota:acme")).isZero()
	}

	@Test
	fun skippedWhenTheLimitIsHeldElsewhere(): Unit = runBlocking {
		val quota = this@DistributedConcurrencyLimitCoroutineTests.quota
		val locks = this@DistributedConcurrencyLimitCoroutineTests.locks
		val other = Executors.newSingleThreadExecutor()
		try {
			// Held on a thread of its own, as another caller would
			val held = CompletableFuture.supplyAsync({ locks.lock(LockRequest.permit("busy:1", 1)) }, other).join()
			held.use {
				assertThat(quota.callWhenFree("1")).isNull()
			}
			assertThat(quota.callWhenFree("1")).isEqualTo("ran")
		}
		finally {
			other.shutdown()
		}
	}

	/** How many hold a permit of a key in Redis now (fields beginning with `~` flag waiters). */
	private fun holders(key: String): Int = this.redis.cli().use { cli ->
		(cli.command("HKEYS", "redis-lock:{$key}:permits") as List<*>).count { !it.toString().startsWith("~") }
	}

	@SpringBootConfiguration
	@ImportAutoConfiguration(DataRedisAutoConfiguration::class, RedisLockAutoConfiguration::class,
			ReactiveLockAutoConfiguration::class)
	@Import(RedisServerConfiguration::class, QuotaService::class)
	class Application

	/** Suspending calls of a partner that takes two at once, with a gauge of those inside. */
	@Service
	class QuotaService {

		private val inside = AtomicInteger()

		private val peak = AtomicInteger()

		/** Wait inside until the gate opens. @return the fencing token of the permit */
		@DistributedConcurrencyLimit(limit = 2, key = "quota:#id", waitTime = "30s")
		suspend fun call(id: String, gate: CompletableDeferred<Unit>): Long {
			this.peak.accumulateAndGet(this.inside.incrementAndGet(), Math::max)
			try {
				gate.await()
				return ReactiveCurrentLock.fencingToken().awaitSingle()
			}
			finally {
				this.inside.decrementAndGet()
			}
		}

		@DistributedConcurrencyLimit(limit = 1, key = "busy:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		suspend fun callWhenFree(id: String): String? = "ran"

		fun inside(): Int = this.inside.get()

		fun peak(): Int = this.peak.get()

	}

}
