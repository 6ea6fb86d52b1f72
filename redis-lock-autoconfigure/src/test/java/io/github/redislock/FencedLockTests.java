package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link FencedLock#fencingToken()} of the {@code Lock} from
 * {@link LockOperations#asLock}: the calling thread's token, shared by its reentrant
 * holds, greater with each grant, and none for a thread that does not hold it.
 */
class FencedLockTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private StandaloneLocks locks;

	private LockTemplate template;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template();
		this.executor = LockFixture.executor("fenced-lock");
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void fencingTokenIsTheGrantsTokenSharedByReentrantHolds() {
		FencedLock lock = this.template.asLock("report");
		lock.lock();
		long token = lock.fencingToken();
		try (LockHandle nested = this.template.lock("report")) {
			assertThat(nested.fencingToken()).isEqualTo(token);
		}
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.fencingToken()).isEqualTo(token);
		lock.unlock();
		assertThat(lock.fencingToken()).isEqualTo(token);
		lock.unlock();
		try (LockHandle next = this.locks.template().lock("report")) {
			assertThat(next.fencingToken()).isGreaterThan(token);
		}
		lock.lock();
		assertThat(lock.fencingToken()).isGreaterThan(token);
		lock.unlock();
	}

	@Test
	void fencingTokenOfAThreadThatDoesNotHoldTheLockThrows() throws Exception {
		FencedLock lock = this.template.asLock("report");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::fencingToken)
			.withMessageContaining("Lock 'report' is not held by thread");
		lock.lock();
		try {
			CompletableFuture<Long> other = CompletableFuture.supplyAsync(lock::fencingToken, this.executor);
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> other.get(5, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(IllegalMonitorStateException.class);
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void tokensOfTwoLocksOfOneNameInOneThreadAreTheSame() {
		FencedLock first = this.template.asLock(LockRequest.of("report").leaseTime(Duration.ofSeconds(30)));
		FencedLock second = this.template.asLock("report");
		first.lock();
		second.lock();
		try {
			assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
		}
		finally {
			second.unlock();
			first.unlock();
		}
	}

}
