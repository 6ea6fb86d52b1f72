package io.github.redislock.kotlin

import io.github.redislock.LockOptions
import io.github.redislock.LockRequest
import io.github.redislock.LockTemplate
import io.github.redislock.ReactiveCurrentLock
import io.github.redislock.ReactiveLockTemplate
import io.github.redislock.contract.LockKeyValues
import io.github.redislock.contract.StandaloneLocks
import io.github.redislock.engine.RedisLockEngine
import io.github.redislock.test.RedisCli
import io.github.redislock.test.RedisServer
import io.github.redislock.test.RedisTest
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.reactive.awaitSingle
import kotlinx.coroutines.reactor.mono
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatIllegalStateException
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

/**
 * [ReactiveLockTemplate] called from Kotlin coroutines on a real Redis: a `mono { }`
 * block runs under the lock and reads its own lock with [ReactiveCurrentLock], since
 * `mono { }` gives the coroutine the subscriber's Reactor Context and `awaitSingle()`
 * passes it on to what it awaits.
 *
 * @author redis-lock
 */
@RedisTest
class ReactiveLockCoroutineTests {

	private lateinit var locks: StandaloneLocks

	private lateinit var cli: RedisCli

	private lateinit var blocking: LockTemplate

	private lateinit var reactive: ReactiveLockTemplate

	@BeforeEach
	fun setUp(server: RedisServer) {
		this.locks = StandaloneLocks(server)
		this.locks.flush()
		this.cli = this.locks.cli()
		val engine = RedisLockEngine(this.locks.connectionFactory(), LockOptions.defaults())
		this.blocking = this.locks.template(engine)
		this.reactive = ReactiveLockTemplate(engine)
	}

	@AfterEach
	fun tearDown() {
		this.locks.close()
	}

	@Test
	fun suspendingBlockRunsUnderTheLockAndReadsItsFencingToken(): Unit = runBlocking {
		val (token, holder) = this@ReactiveLockCoroutineTests.reactive.execute("coroutine", mono {
			val token = ReactiveCurrentLock.fencingToken().awaitSingle()
			delay(20)
			token to LockKeyValues.holder(this@ReactiveLockCoroutineTests.cli, "redis-lock:{coroutine}")
		}).awaitSingle()
		assertThat(holder).isNotNull()
		assertThat(token).isPositive()
		assertThat(this@ReactiveLockCoroutineTests.blocking.isLocked("coroutine")).isFalse()
	}

	@Test
	fun concurrentCoroutinesNeverOverlap(): Unit = runBlocking(Dispatchers.Default) {
		val inside = ConcurrentHashMap<String, AtomicInteger>()
		val overlaps = AtomicInteger()
		val counts = ConcurrentHashMap<String, Int>()
		val tokens = (0 until COROUTINES).map { i ->
			val key = KEYS[i % KEYS.size]
			// A long wait: the last of 50 waiters of a key waits for 49 holders, however loaded the machine.
			val request = LockRequest.of(key).waitTime(Duration.ofSeconds(60))
			async {
				this@ReactiveLockCoroutineTests.reactive.execute(request, mono {
					val gauge = inside.computeIfAbsent(key) { AtomicInteger() }
					if (gauge.incrementAndGet() > 1) {
						overlaps.incrementAndGet()
					}
					val token = ReactiveCurrentLock.fencingToken().awaitSingle()
					val value = counts[key] ?: 0
					delay(1)
					counts[key] = value + 1
					gauge.decrementAndGet()
					key to token
				}).awaitSingle()
			}
		}.awaitAll()
		assertThat(overlaps.get()).isZero()
		for (key in KEYS) {
			assertThat(counts[key]).isEqualTo(COROUTINES / KEYS.size)
			assertThat(tokens.filter { it.first == key }.map { it.second }).doesNotHaveDuplicates()
			assertThat(this@ReactiveLockCoroutineTests.blocking.isLocked(key)).isFalse()
		}
	}

	@Test
	fun childCoroutinesSeeTheLockAndCoroutinesOfAnotherScopeDoNot(): Unit = runBlocking {
		this@ReactiveLockCoroutineTests.reactive.execute("scopes", mono {
			val own = ReactiveCurrentLock.fencingToken().awaitSingle()
			// A child inherits the coroutine context, Reactor Context included.
			assertThat(async { ReactiveCurrentLock.fencingToken().awaitSingle() }.await()).isEqualTo(own)
			// A coroutine of another scope starts from an empty context: pass it the token instead.
			assertThatIllegalStateException().isThrownBy {
				runBlocking {
					CoroutineScope(Dispatchers.Default).async { ReactiveCurrentLock.fencingToken().awaitSingle() }
						.await()
				}
			}
			// withContext keeps the Reactor Context, whatever the dispatcher.
			assertThat(withContext(Dispatchers.IO) { ReactiveCurrentLock.fencingToken().awaitSingle() })
				.isEqualTo(own)
		}).awaitSingle()
	}

	private companion object {

		const val COROUTINES = 200

		val KEYS = listOf("counter:a", "counter:b", "counter:c", "counter:d")

	}

}
