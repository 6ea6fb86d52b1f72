package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What the engine tells its {@link LockObserver}: acquisitions, holds and their end,
 * renewals and losses, each with the context the observer gave.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockObserverTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	/**
	 * A renewal may come 2 s late (as late as the command timeout allows) before the
	 * lease runs out, so that a slow one is reported as a renewal, not a loss.
	 */
	private static final LockOptions OPTIONS = LockOptions.defaults()
		.withWatchdog(Duration.ofMillis(2500), Duration.ofMillis(500));

	private final RecordingObserver observer = new RecordingObserver();

	private StandaloneLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	private RedisCli cli;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template(OPTIONS, this.observer);
		this.otherNode = this.locks.template();
		this.cli = this.locks.cli();
		this.executor = LockFixture.executor("observed");
		// A first connection may take longer than the short lease of these tests.
		this.template.run("warm-up", () -> {
		});
		this.observer.events.clear();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.locks.close();
	}

	@Test
	void acquisitionHoldAndReleaseAreReportedWithTheObserversContexts() {
		LockHandle handle = this.template.lock("order:1");
		assertThat(this.observer.events).containsExactly("acquireStarted order:1 null", "acquireEnded order:1 ACQUIRED",
				"held order:1 " + handle.fencingToken() + " acquire-context");
		handle.close();
		assertThat(this.observer.events).last().isEqualTo("released order:1 hold-context RELEASED");
	}

	@Test
	void requestNameReachesTheObserver() {
		this.template.run(LockRequest.of("order:1").name("Orders.pay"), () -> {
		});
		assertThat(this.observer.events).first().isEqualTo("acquireStarted order:1 Orders.pay");
	}

	@Test
	void reentrantAcquisitionIsNotReported() {
		try (LockHandle outer = this.template.lock("order:1")) {
			int reported = this.observer.events.size();
			this.template.lock("order:1").close();
			assertThat(this.observer.events).hasSize(reported);
		}
	}

	@Test
	void timedOutAcquisitionIsReportedWithItsWaitAndNoHold() {
		try (LockHandle held = this.otherNode.lock("order:1")) {
			assertThat(this.template.tryLock("order:1", Duration.ofMillis(200))).isEmpty();
		}
		assertThat(this.observer.events).containsExactly("acquireStarted order:1 null",
				"acquireEnded order:1 TIMED_OUT");
		assertThat(Duration.ofNanos(this.observer.lastWaitNanos)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
	}

	@Test
	void lockPassedToALocalWaiterIsReportedAsReleasedThenHeldByTheWaiter() throws Exception {
		LockHandle first = this.template.lock("order:1");
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> this.template.lock("order:1"),
				this.executor);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.locks.diagnostics(this.template).waiterCount() == 1);
		first.close();
		LockHandle second = waiter.get(5, TimeUnit.SECONDS);
		second.close();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(this.observer.events).contains("released order:1 hold-context RELEASED",
				"held order:1 " + second.fencingToken() + " acquire-context");
		assertThat(this.observer.events.stream().filter((event) -> event.startsWith("released"))).hasSize(2);
	}

	@Test
	void renewalsAreReportedWithTheHoldsContext() {
		try (LockHandle handle = this.template.lock("order:1")) {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.observer.events.contains("renewed order:1 hold-context"));
		}
	}

	@Test
	void lossFoundByTheWatchdogIsReportedOnceAndTheHoldEndsLost() {
		LockHandle handle = this.template.lock("order:1");
		this.cli.command("DEL", "redis-lock:{order:1}");
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.observer.events.contains("lost order:1 " + handle.fencingToken() + " hold-context"));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		assertThat(this.observer.events).last().isEqualTo("released order:1 hold-context LOST");
		assertThat(this.observer.events.stream().filter((event) -> event.startsWith("lost"))).hasSize(1);
	}

	@Test
	void lossFoundAtReleaseIsReportedThenTheHoldEndsLost() {
		LockHandle handle = this.template.lock(LockRequest.of("order:1").leaseTime(Duration.ofMillis(100)));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.cli.get("redis-lock:{order:1}") == null);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		assertThat(this.observer.events).endsWith("lost order:1 " + handle.fencingToken() + " hold-context",
				"released order:1 hold-context LOST");
	}

	@Test
	void failingObserverNeitherFailsNorLeaksLocks(CapturedOutput output) {
		LockTemplate template = this.locks.template(OPTIONS, new FailingObserver());
		template.run("order:1", () -> {
		});
		assertThat(this.locks.diagnostics(template).heldCount()).isZero();
		assertThat(this.otherNode.tryLock("order:1", Duration.ZERO)).hasValueSatisfying(LockHandle::close);
		assertThat(output).contains("Lock observer", "failed in held for lock 'order:1'");
	}

	/**
	 * Records each call as a line of text, with the contexts it hands out.
	 */
	static class RecordingObserver implements LockObserver {

		final List<String> events = new CopyOnWriteArrayList<>();

		volatile long lastWaitNanos;

		@Override
		public Object acquireStarted(String key, @Nullable String name) {
			this.events.add("acquireStarted " + key + " " + name);
			return "acquire-context";
		}

		@Override
		public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
				@Nullable Throwable failure) {
			assertThat(context).isEqualTo("acquire-context");
			this.lastWaitNanos = waitNanos;
			this.events.add("acquireEnded " + key + " " + outcome);
		}

		@Override
		public Object held(String key, @Nullable String name, long fencingToken, @Nullable Object acquireContext) {
			this.events.add("held " + key + " " + fencingToken + " " + acquireContext);
			return "hold-context";
		}

		@Override
		public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
				@Nullable Throwable failure) {
			this.events.add("released " + key + " " + holdContext + " " + outcome);
		}

		@Override
		public void renewed(String key, @Nullable Object holdContext) {
			this.events.add("renewed " + key + " " + holdContext);
		}

		@Override
		public void lost(String key, long fencingToken, @Nullable Object holdContext) {
			this.events.add("lost " + key + " " + fencingToken + " " + holdContext);
		}

	}

	/**
	 * Throws from every call.
	 */
	static class FailingObserver implements LockObserver {

		@Override
		public Object acquireStarted(String key, @Nullable String name) {
			throw new IllegalStateException("acquireStarted");
		}

		@Override
		public void acquireEnded(String key, @Nullable Object context, AcquireOutcome outcome, long waitNanos,
				@Nullable Throwable failure) {
			throw new IllegalStateException("acquireEnded");
		}

		@Override
		public Object held(String key, @Nullable String name, long fencingToken, @Nullable Object acquireContext) {
			throw new IllegalStateException("held");
		}

		@Override
		public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
				@Nullable Throwable failure) {
			throw new IllegalStateException("released");
		}

	}

}
