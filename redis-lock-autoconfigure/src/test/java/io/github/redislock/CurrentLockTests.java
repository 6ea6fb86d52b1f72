package io.github.redislock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockSnapshot.HeldLock;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link CurrentLock} around {@link LockTemplate#execute} actions and scopes opened by
 * hand: the innermost invocation's lock on its own thread, a stack for nested ones, and
 * nothing left behind once they all returned.
 */
class CurrentLockTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	private StandaloneLocks locks;

	private LockTemplate template;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.otherThread.shutdownNow();
		this.locks.close();
		assertThat(CurrentLock.stack()).isNull();
	}

	@Test
	void insideExecuteTheHandleAndTokenAreThoseOfTheHeldLock() {
		this.template.run("a", () -> {
			LockHandle handle = CurrentLock.handle();
			assertThat(handle.key()).isEqualTo("a");
			assertThat(handle.isHeld()).isTrue();
			assertThat(CurrentLock.handle("a")).isSameAs(handle);
			assertThat(CurrentLock.fencingToken()).isEqualTo(handle.fencingToken())
				.isEqualTo(CurrentLock.fencingToken("a"))
				.isEqualTo(heldToken("a"));
		});
		assertThat(CurrentLock.isPresent()).isFalse();
	}

	@Test
	void nestedExecuteIsSeenWhileItRunsAndTheOuterLockAgainAfterItReturns() {
		List<String> seen = new ArrayList<>();
		this.template.run("outer", () -> {
			seen.add(CurrentLock.handle().key());
			this.template.run("inner", () -> seen.add(CurrentLock.handle().key()));
			seen.add(CurrentLock.handle().key());
		});
		assertThat(seen).containsExactly("outer", "inner", "outer");
	}

	@Test
	void reentrantExecuteOfTheSameKeySeesItsOwnHandleWithTheOutermostToken() {
		this.template.run("a", () -> {
			LockHandle outer = CurrentLock.handle();
			this.template.run("a", () -> {
				assertThat(CurrentLock.handle()).isNotSameAs(outer);
				assertThat(CurrentLock.fencingToken()).isEqualTo(outer.fencingToken());
			});
			assertThat(CurrentLock.handle()).isSameAs(outer);
		});
	}

	@Test
	void outsideAnyInvocationThrowsSayingWhereItWorksAndWhatToUseInstead() {
		assertThat(CurrentLock.isPresent()).isFalse();
		assertThatIllegalStateException().isThrownBy(CurrentLock::handle)
			.withMessageContaining("@DistributedLock method")
			.withMessageContaining("LockTemplate.execute")
			.withMessageContaining("on the thread that runs it")
			.withMessageContaining("LockHandle returned by lock, tryLock or lockAll");
		assertThatIllegalStateException().isThrownBy(CurrentLock::fencingToken)
			.withMessageContaining("No lock is held");
		assertThatIllegalStateException().isThrownBy(() -> CurrentLock.fencingToken("a"))
			.withMessageContaining("No lock is held");
	}

	@Test
	void aLockTakenWithLockIsNotCurrent() {
		try (LockHandle handle = this.template.lock("a")) {
			assertThat(CurrentLock.isPresent()).isFalse();
		}
	}

	@Test
	void afterAnActionThrowsTheOuterLockIsCurrentAgainAndFinallyNothingIsLeft() {
		this.template.run("outer", () -> {
			assertThatIllegalStateException().isThrownBy(() -> this.template.run("inner", () -> {
				throw new IllegalStateException("boom");
			})).withMessage("boom");
			assertThat(CurrentLock.handle().key()).isEqualTo("outer");
		});
		assertThatIllegalStateException().isThrownBy(() -> this.template.run("a", () -> {
			throw new IllegalStateException("boom");
		}));
		assertThat(CurrentLock.isPresent()).isFalse();
		assertThat(CurrentLock.stack()).isNull();
	}

	@Test
	void anotherThreadDoesNotSeeTheLock() {
		this.template.run("a", () -> {
			boolean seenElsewhere = CompletableFuture.supplyAsync(CurrentLock::isPresent, this.otherThread).join();
			assertThat(seenElsewhere).isFalse();
			assertThat(CurrentLock.isPresent()).isTrue();
		});
	}

	@Test
	void tokensIncreaseAcrossGrants() {
		long first = this.template.execute("a", CurrentLock::fencingToken);
		long second = this.template.execute("a", CurrentLock::fencingToken);
		long third = this.template.execute("a", CurrentLock::fencingToken);
		assertThat(first).isLessThan(second);
		assertThat(second).isLessThan(third);
	}

	@Test
	void aGroupScopeAnswersByKeyAndNamesTheKeysWhenAskedForOneLock() {
		try (LockGroup group = this.template.lockAll(List.of(LockRequest.of("a"), LockRequest.of("b")));
				CurrentLock.Scope scope = CurrentLock.open(group)) {
			assertThat(CurrentLock.handle("a")).isSameAs(group.handles().get(0));
			assertThat(CurrentLock.fencingToken("b")).isEqualTo(group.handles().get(1).fencingToken());
			assertThatIllegalStateException().isThrownBy(CurrentLock::handle)
				.withMessageContaining("several locks [a, b]")
				.withMessageContaining("CurrentLock.handle(key)");
			assertThatIllegalStateException().isThrownBy(() -> CurrentLock.handle("c"))
				.withMessageContaining("does not hold lock 'c'")
				.withMessageContaining("it holds [a, b]");
		}
	}

	@Test
	void anEmptyGroupScopeHasNoLockToReturn() {
		try (CurrentLock.Scope scope = CurrentLock.open(new LockGroup(List.of()))) {
			assertThatIllegalStateException().isThrownBy(CurrentLock::handle).withMessageContaining("holds no lock");
			assertThatIllegalStateException().isThrownBy(() -> CurrentLock.handle("a"))
				.withMessageContaining("it holds []");
		}
	}

	@Test
	void lookupByKeyReadsTheInnermostInvocationOnly() {
		this.template.run("outer",
				() -> this.template.run("inner",
						() -> assertThatIllegalStateException().isThrownBy(() -> CurrentLock.handle("outer"))
							.withMessageContaining("it holds [inner]")));
	}

	@Test
	void closingAnOuterScopeDropsInnerScopesLeftOpen() {
		try (LockHandle outer = this.template.lock("outer"); LockHandle inner = this.template.lock("inner")) {
			CurrentLock.Scope outerScope = CurrentLock.open(outer);
			CurrentLock.open(inner);
			assertThat(CurrentLock.handle()).isSameAs(inner);
			outerScope.close();
			assertThat(CurrentLock.isPresent()).isFalse();
			assertThat(CurrentLock.stack()).isNull();
			outerScope.close();
		}
	}

	@Test
	void aScopeClosedOnAnotherThreadIsRefusedAndStaysOpen() {
		try (LockHandle handle = this.template.lock("a"); CurrentLock.Scope scope = CurrentLock.open(handle)) {
			Throwable failure = CompletableFuture.runAsync(scope::close, this.otherThread)
				.handle((ignored, ex) -> ex.getCause())
				.join();
			assertThat(failure).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("must be closed on the thread that opened it");
			assertThat(CurrentLock.handle()).isSameAs(handle);
		}
	}

	private long heldToken(String key) {
		return this.locks.diagnostics(this.template)
			.snapshot()
			.held()
			.stream()
			.filter((held) -> held.key().equals(key))
			.mapToLong(HeldLock::fencingToken)
			.findFirst()
			.orElseThrow();
	}

}
