package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockObserver.ReleaseOutcome;
import io.github.redislock.contract.CommandStats;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link LockGroup} and {@link LockOperations#lockAll}: several locks taken in order
 * within one wait budget, released together, the last taken first.
 */
class LockGroupTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private final List<String> released = new CopyOnWriteArrayList<>();

	private StandaloneLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	private RedisCli cli;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template(LockOptions.defaults(), new LockObserver() {

			@Override
			public void released(String key, @Nullable Object holdContext, ReleaseOutcome outcome,
					@Nullable Throwable failure) {
				LockGroupTests.this.released.add(key);
			}

		});
		this.otherNode = this.locks.template();
		this.cli = this.locks.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void lockAllHoldsEveryLockUntilTheGroupIsClosedAndReleasesTheLastTakenFirst() {
		try (LockGroup group = this.template.lockAll(requests("a", "b", "c"))) {
			assertThat(group.isHeld()).isTrue();
			assertThat(group.handles()).extracting(LockHandle::key).containsExactly("a", "b", "c");
			assertThat(this.cli.keys("redis-lock:{?}")).containsExactlyInAnyOrder("redis-lock:{a}", "redis-lock:{b}",
					"redis-lock:{c}");
		}
		assertThat(this.released).containsExactly("c", "b", "a");
		assertThat(this.cli.keys("redis-lock:{?}"))
			.allSatisfy((key) -> assertThat(LockKeyValues.holder(this.cli, key)).isNull());
		assertThat(this.locks.diagnostics(this.template).heldCount()).isZero();
	}

	@Test
	void closeReleasesEveryLockAndThrowsTheFirstFailureWithTheOthersSuppressed() {
		LockGroup group = this.template.lockAll(requests("a", "b", "c"));
		// Redis forgets two of them, as after a restart without persistence.
		this.cli.command("DEL", "redis-lock:{a}", "redis-lock:{c}");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(group::close).satisfies((ex) -> {
			assertThat(ex.getKey()).isEqualTo("c");
			assertThat(ex.getSuppressed()).singleElement()
				.isInstanceOfSatisfying(LockLostException.class, (other) -> assertThat(other.getKey()).isEqualTo("a"));
		});
		assertThat(this.released).containsExactly("c", "b", "a");
		assertThat(LockKeyValues.holder(this.cli, "redis-lock:{b}")).isNull();
		assertThat(group.isHeld()).isFalse();
	}

	@Test
	void closingAgainHasNoEffect() {
		LockGroup group = this.template.lockAll(requests("a", "b"));
		this.cli.command("DEL", "redis-lock:{b}");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(group::close);
		long roundTrips = CommandStats.roundTrips(this.cli);
		group.close();
		assertThat(CommandStats.roundTrips(this.cli)).isEqualTo(roundTrips);
		assertThat(this.released).containsExactly("b", "a");
	}

	@Test
	void groupIsNotHeldOnceOneOfItsLocksIsReleased() {
		try (LockGroup group = this.template.lockAll(requests("a", "b"))) {
			group.handles().get(1).close();
			assertThat(group.isHeld()).isFalse();
		}
		assertThat(this.released).containsExactly("b", "a");
	}

	@Test
	void lockAllSharesTheFirstRequestsWaitAndReleasesWhatItTookWhenALaterLockTimesOut() throws Exception {
		// "a" is free only after most of the budget; "b" stays held: it gets the rest.
		assertBudgetShared(this.template, LockRequest.of("a").waitTime(Duration.ofSeconds(2)),
				LockRequest.of("b").waitTime(Duration.ofMinutes(1)));
	}

	@Test
	void lockAllOfATemplateSharesItsDefaultWaitWhenTheFirstRequestHasNone() throws Exception {
		LockTemplate template = this.locks.template(LockOptions.defaults().withWaitTime(Duration.ofSeconds(2)));
		assertBudgetShared(template, LockRequest.of("a"), LockRequest.of("b"));
	}

	@Test
	void lockAllOfAnyLockOperationsSharesTheFirstRequestsWait() throws Exception {
		assertBudgetShared(new DelegatingLockOperations(this.template),
				LockRequest.of("a").waitTime(Duration.ofSeconds(2)),
				LockRequest.of("b").waitTime(Duration.ofMinutes(1)));
	}

	@Test
	void lockAllNeedsARequest() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.template.lockAll(List.of()));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DelegatingLockOperations(this.template).lockAll(List.of()));
	}

	/**
	 * Take "a" then "b" with a 2 s budget, while another node holds "a" for 1.5 s and "b"
	 * throughout: "b" waits only the half second left, and "a" is given back.
	 */
	private void assertBudgetShared(LockOperations locks, LockRequest first, LockRequest second) throws Exception {
		LockHandle a = this.otherNode.lock("a");
		LockHandle b = this.otherNode.lock("b");
		CompletableFuture<Void> releaseA = CompletableFuture.runAsync(a::close,
				CompletableFuture.delayedExecutor(1500, TimeUnit.MILLISECONDS));
		long start = System.nanoTime();
		assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> locks.lockAll(List.of(first, second)))
			.satisfies((ex) -> {
				assertThat(ex.getKey()).isEqualTo("b");
				assertThat(ex.getWaitTime()).isEqualTo(Duration.ofSeconds(2));
			});
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(1900),
				Duration.ofMillis(3000));
		releaseA.get(5, TimeUnit.SECONDS);
		try (LockHandle again = this.otherNode.tryLock("a", Duration.ZERO).orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
		}
		b.close();
	}

	private static List<LockRequest> requests(String... keys) {
		return List.of(keys).stream().map(LockRequest::of).toList();
	}

	/**
	 * Another implementation of {@link LockOperations}, which gets the default
	 * {@link LockOperations#lockAll}.
	 */
	private record DelegatingLockOperations(LockOperations delegate) implements LockOperations {

		@Override
		public <T> T execute(LockRequest request, Supplier<T> action) {
			return this.delegate.execute(request, action);
		}

		@Override
		public Optional<LockHandle> tryLock(LockRequest request) {
			return this.delegate.tryLock(request);
		}

		@Override
		public LockHandle lock(LockRequest request) {
			return this.delegate.lock(request);
		}

		@Override
		public Optional<Duration> remainingLease(String key) {
			return this.delegate.remainingLease(key);
		}

	}

}
