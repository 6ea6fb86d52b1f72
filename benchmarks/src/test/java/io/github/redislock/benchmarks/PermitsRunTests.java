package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.Semaphore;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PermitsRun} and its {@link Holders} checker on a real Redis: the checker must
 * see more holders than the limit when nothing limits them, or the permits scenario could
 * never fail, and no more than the limit under a semaphore of that many permits.
 */
class PermitsRunTests {

	private static final int THREADS = 8;

	private static RedisServer redis;

	@BeforeAll
	static void startRedis() {
		redis = RedisServer.start();
	}

	@AfterAll
	static void stopRedis() {
		redis.stop();
	}

	@Test
	void checkerCountsEveryHolderWhenNothingLimitsThem() throws Exception {
		PermitsRun.Outcome outcome = run(new PermitClient(Integer.MAX_VALUE));

		assertThat(outcome.peakHolders()).isGreaterThan(PermitsRun.LIMIT);
	}

	@Test
	void checkerCountsNoMoreHoldersThanPermits() throws Exception {
		PermitsRun.Outcome outcome = run(new PermitClient(PermitsRun.LIMIT));

		assertThat(outcome.peakHolders()).isPositive().isLessThanOrEqualTo(PermitsRun.LIMIT);
		assertThat(outcome.measured()).isPositive();
	}

	private static PermitsRun.Outcome run(LockClient client) throws Exception {
		try (Holders holders = new Holders(redis.host(), redis.port())) {
			PermitsRun run = new PermitsRun(client, holders, THREADS, System.currentTimeMillis() + 100,
					Duration.ofMillis(100), Duration.ofMillis(300))
				.start();
			long cpu = run.measure(() -> {
			}, () -> {
			});
			return run.join(cpu);
		}
	}

	/** Permits of a JVM-local semaphore, as many as given. */
	private static final class PermitClient implements LockClient {

		private final Semaphore semaphore;

		PermitClient(int permits) {
			this.semaphore = new Semaphore(permits);
		}

		@Override
		public Release acquire(String key, @Nullable Duration lease) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Release acquirePermit(String key, int limit) {
			this.semaphore.acquireUninterruptibly();
			return this.semaphore::release;
		}

		@Override
		public void close() {
		}

	}

}
