package io.github.redislock.kotlin

import io.github.redislock.LockTimeoutException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.Test

/**
 * Kotlin `suspend` functions under `@DistributedLock` in a Spring Boot application on a
 * real Redis: concurrent coroutines never overlap, the function reads its fencing token
 * from its coroutine, and SKIP and THROW apply when the lock is held elsewhere.
 *
 * @author redis-lock
 */
class DistributedLockCoroutineTests : LockedStockTests() {

	@Test
	fun concurrentCoroutinesBuyingEachProductNeverOverlapAndTheCountStaysExact(): Unit = runBlocking {
		val counts = withContext(Dispatchers.Default) {
			(0 until BUYERS).map { i ->
				val product = PRODUCTS[i % PRODUCTS.size]
				async { product to this@DistributedLockCoroutineTests.stock.buy(product) }
			}.awaitAll()
		}
		assertThat(this@DistributedLockCoroutineTests.stock.overlaps()).isZero()
		val perProduct = BUYERS / PRODUCTS.size
		for (product in PRODUCTS) {
			assertThat(this@DistributedLockCoroutineTests.stock.sold(product)).isEqualTo(perProduct)
			// Each buyer saw a count of its own: none read what another one was writing.
			assertThat(counts.filter { it.first == product }.map { it.second })
				.containsExactlyInAnyOrderElementsOf(1..perProduct)
		}
	}

	@Test
	fun suspendFunctionReadsTheFencingTokenOfItsLockFromItsCoroutine(): Unit = runBlocking {
		val first = this@DistributedLockCoroutineTests.stock.fencingToken("1")
		// After the release, the lock's key keeps the last token it granted.
		assertThat(this@DistributedLockCoroutineTests.locks.fencingToken("token:1")).isEqualTo(first)
		val second = this@DistributedLockCoroutineTests.stock.fencingToken("1")
		assertThat(second).isGreaterThan(first)
	}

	@Test
	fun skippedWhenTheLockIsHeldElsewhere(): Unit = runBlocking {
		this@DistributedLockCoroutineTests.locks.holdElsewhere("busy:1").use {
			assertThat(this@DistributedLockCoroutineTests.stock.skipWhenBusy("1")).isNull()
		}
		assertThat(this@DistributedLockCoroutineTests.stock.runs()).isZero()
		assertThat(this@DistributedLockCoroutineTests.stock.skipWhenBusy("1")).isEqualTo("ran")
	}

	@Test
	fun failsWithLockTimeoutExceptionWhenTheLockStaysHeldElsewhere() {
		this.locks.holdElsewhere("busy:2").use {
			assertThatExceptionOfType(LockTimeoutException::class.java)
				.isThrownBy { runBlocking { this@DistributedLockCoroutineTests.stock.throwWhenBusy("2") } }
				.satisfies({ assertThat(it.key).isEqualTo("busy:2") })
		}
		assertThat(this.stock.runs()).isZero()
		assertThat(runBlocking { this@DistributedLockCoroutineTests.stock.throwWhenBusy("2") }).isEqualTo("ran")
	}

	private companion object {

		const val BUYERS = 200

		val PRODUCTS = listOf("a", "b", "c", "d")

	}

}
