package io.github.redislock.kotlin

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import java.util.concurrent.ConcurrentLinkedQueue

/**
 * A method returning a Kotlin `Flow` under `@DistributedLock`: the lock is taken when the
 * flow is collected, held until it completes, and released when the collector cancels.
 *
 * @author redis-lock
 */
class DistributedLockFlowTests : LockedStockTests() {

	@Test
	fun lockIsHeldFromCollectionStartToCompletion(): Unit = runBlocking {
		val feed = this@DistributedLockFlowTests.stock.feed("1", 5)
		// A cold flow: nothing is locked until it is collected.
		assertThat(this@DistributedLockFlowTests.locks.names()).isEmpty()
		val heldAtEachElement = mutableListOf<Boolean>()
		feed.collect { heldAtEachElement.add("feed:1" in this@DistributedLockFlowTests.locks.names()) }
		assertThat(heldAtEachElement).containsExactly(true, true, true, true, true)
		// The flow completes once the lock was released.
		assertThat(this@DistributedLockFlowTests.locks.names()).isEmpty()
	}

	@Test
	fun collectorThatTakesOneElementReleasesTheLock(): Unit = runBlocking {
		var heldAtFirst = false
		val first = this@DistributedLockFlowTests.stock.feed("2", 1_000)
			.onEach { heldAtFirst = "feed:2" in this@DistributedLockFlowTests.locks.names() }
			.take(1)
			.toList()
		assertThat(first).containsExactly(1)
		assertThat(heldAtFirst).isTrue()
		await().untilAsserted { assertThat(this@DistributedLockFlowTests.locks.names()).doesNotContain("feed:2") }
		assertThat(this@DistributedLockFlowTests.stock.feed("2", 2).toList()).containsExactly(1, 2)
	}

	@Test
	fun collectorCancelledByATimeoutReleasesTheLock(): Unit = runBlocking {
		val collected = mutableListOf<Int>()
		assertThatExceptionOfType(TimeoutCancellationException::class.java).isThrownBy {
			runBlocking {
				// Long enough for the grant on a loaded machine, far shorter than the feed's 20 s.
				withTimeout(1_000) {
					this@DistributedLockFlowTests.stock.feed("3", 1_000).collect {
						assertThat(this@DistributedLockFlowTests.locks.names()).contains("feed:3")
						collected.add(it)
					}
				}
			}
		}
		assertThat(collected).isNotEmpty()
		await().untilAsserted { assertThat(this@DistributedLockFlowTests.locks.names()).doesNotContain("feed:3") }
	}

	@Test
	fun skippedFlowIsEmptyWhenTheLockIsHeldElsewhere(): Unit = runBlocking {
		this@DistributedLockFlowTests.locks.holdElsewhere("busy:3").use {
			assertThat(this@DistributedLockFlowTests.stock.feedWhenFree("3", 3).toList()).isEmpty()
		}
		assertThat(this@DistributedLockFlowTests.stock.runs()).isZero()
		assertThat(this@DistributedLockFlowTests.stock.feedWhenFree("3", 3).toList()).containsExactly(1, 2, 3)
	}

	@Test
	fun secondCollectorWaitsForTheFirstToComplete(): Unit = runBlocking {
		val order = ConcurrentLinkedQueue<String>()
		val first = launch(Dispatchers.Default) {
			this@DistributedLockFlowTests.stock.feed("4", 5).collect { order.add("first $it") }
		}
		await().untilAsserted { assertThat(order).isNotEmpty() }
		this@DistributedLockFlowTests.stock.feed("4", 2).collect { order.add("second $it") }
		first.join()
		assertThat(order).containsExactly("first 1", "first 2", "first 3", "first 4", "first 5", "second 1",
				"second 2")
	}

}
