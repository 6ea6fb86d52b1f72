package io.github.redislock.kotlin

import io.github.redislock.DistributedLock
import io.github.redislock.DistributedLock.OnFailure
import io.github.redislock.ReactiveCurrentLock
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.reactive.awaitSingle
import org.springframework.stereotype.Service
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger

/**
 * Kotlin `suspend` functions and a `Flow` under [DistributedLock], with the detectors of
 * a lock that fails: a stock count per product read and written back without atomicity
 * around a `delay()`, which only a working lock keeps exact, and a gauge of the callers
 * inside each lock. Open to Spring's proxy through the all-open `spring` compiler plugin,
 * which opens `@Service` classes.
 *
 * @author redis-lock
 */
@Service
class StockService {

	private val sold = ConcurrentHashMap<String, Int>()

	private val inside = ConcurrentHashMap<String, AtomicInteger>()

	private val overlaps = AtomicInteger()

	private val runs = AtomicInteger()

	/**
	 * Sell one item of the product: read the count, suspend, write it back one higher.
	 * The wait is long: the last of 50 buyers of a product waits for 49 holders, however
	 * loaded the machine.
	 * @return the count after this sale
	 */
	@DistributedLock(key = ["stock:#id"], waitTime = "60s")
	suspend fun buy(id: String): Int {
		val gauge = this.inside.computeIfAbsent(id) { AtomicInteger() }
		if (gauge.incrementAndGet() > 1) {
			this.overlaps.incrementAndGet()
		}
		try {
			val count = this.sold[id] ?: 0
			delay(2)
			this.sold[id] = count + 1
			return count + 1
		}
		finally {
			gauge.decrementAndGet()
		}
	}

	/**
	 * Emit `1..count`, one every 20 ms, under the lock of the feed: a cold flow, so the
	 * lock is taken when it is collected.
	 */
	@DistributedLock(key = ["feed:#id"], waitTime = "5s")
	fun feed(id: String, count: Int): Flow<Int> = flow {
		for (i in 1..count) {
			emit(i)
			delay(20)
		}
	}

	/** Emits `1..count` only when the lock is free at once; an empty flow otherwise. */
	@DistributedLock(key = ["busy:#id"], waitTime = "0", onFailure = OnFailure.SKIP)
	fun feedWhenFree(id: String, count: Int): Flow<Int> = flow {
		this@StockService.runs.incrementAndGet()
		for (i in 1..count) {
			emit(i)
		}
	}

	/** The fencing token of the lock this call holds, read from the coroutine. */
	@DistributedLock(key = ["token:#id"], waitTime = "5s")
	suspend fun fencingToken(id: String): Long = ReactiveCurrentLock.fencingToken().awaitSingle()

	/** Runs only when the lock is free at once; skipped (`null`) otherwise. */
	@DistributedLock(key = ["busy:#id"], waitTime = "0", onFailure = OnFailure.SKIP)
	suspend fun skipWhenBusy(id: String): String? {
		this.runs.incrementAndGet()
		delay(1)
		return "ran"
	}

	/** Waits 200 ms for the lock, then fails with a `LockTimeoutException`. */
	@DistributedLock(key = ["busy:#id"], waitTime = "200ms")
	suspend fun throwWhenBusy(id: String): String {
		this.runs.incrementAndGet()
		delay(1)
		return "ran"
	}

	fun sold(id: String): Int = this.sold[id] ?: 0

	fun overlaps(): Int = this.overlaps.get()

	fun runs(): Int = this.runs.get()

	fun reset() {
		this.sold.clear()
		this.overlaps.set(0)
		this.runs.set(0)
	}

}
