package io.github.redislock.annotation;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import io.github.redislock.annotation.TransactionalServicesConfiguration.RecordingTransactionManager;
import io.github.redislock.annotation.TransactionalServicesConfiguration.StockService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests that {@link io.github.redislock.DistributedLock @DistributedLock} wraps
 * {@code @Transactional}: the lock is held when the transaction begins and still held
 * when it has committed or rolled back, on a real JDBC transaction manager.
 */
@LockedServicesTest
class DistributedLockTransactionTests {

	@Autowired
	private StockService stock;

	@Autowired
	private RecordingTransactionManager transactionManager;

	@Autowired
	private LockProbe probe;

	@BeforeEach
	void reset() {
		this.probe.flush();
		this.transactionManager.events.clear();
	}

	@Test
	void lockIsTakenBeforeTransactionBeginsAndReleasedAfterCommit() {
		this.stock.reserve("apple", null);
		assertThat(this.transactionManager.events).containsExactly("begin [stock:apple]", "committed [stock:apple]");
		assertThat(this.probe.held()).isEmpty();
		assertThat(this.stock.reservations("apple")).isOne();
	}

	@Test
	void lockIsReleasedAfterRollback() {
		IllegalStateException failure = new IllegalStateException("out of stock");
		assertThatIllegalStateException().isThrownBy(() -> this.stock.reserve("pear", failure)).isSameAs(failure);
		assertThat(this.transactionManager.events).containsExactly("begin [stock:pear]", "rolled back [stock:pear]");
		assertThat(this.probe.held()).isEmpty();
		assertThat(this.stock.reservations("pear")).isZero();
	}

}
