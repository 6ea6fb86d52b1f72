package io.github.redislock.kotlin

import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest

/**
 * The set-up of the tests of the locked [StockService] in the coroutine application:
 * each test starts with no lock held and nothing sold, and must leave no lock held.
 *
 * @author redis-lock
 */
@SpringBootTest(classes = [CoroutineServicesConfiguration::class])
abstract class LockedStockTests {

	@Autowired
	protected lateinit var stock: StockService

	@Autowired
	protected lateinit var locks: HeldLocks

	@BeforeEach
	fun reset() {
		this.locks.flush()
		this.stock.reset()
	}

	@AfterEach
	fun nothingLeftLocked() {
		await().untilAsserted { assertThat(this.locks.names()).isEmpty() }
	}

}
