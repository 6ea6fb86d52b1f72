package io.github.redislock.annotation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import io.github.redislock.CurrentLock;
import io.github.redislock.annotation.CurrentLockServicesConfiguration.NestingTokenService;
import io.github.redislock.annotation.CurrentLockServicesConfiguration.TokenService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link CurrentLock} inside {@link io.github.redislock.DistributedLock @DistributedLock}
 * methods: the method's own lock and token, by key when it locks several, the innermost
 * of nested calls, and nothing on other threads or once the method returned.
 */
@LockedServicesTest
class DistributedLockCurrentLockTests {

	private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	@Autowired
	private TokenService tokens;

	@Autowired
	private NestingTokenService nesting;

	@Autowired
	private LockProbe probe;

	@BeforeEach
	void reset() {
		this.probe.flush();
		this.tokens.seen().clear();
		this.nesting.seen().clear();
	}

	@AfterEach
	void shutDown() {
		this.otherThread.shutdownNow();
		assertThat(CurrentLock.isPresent()).isFalse();
	}

	@Test
	void methodReadsItsOwnHeldLockAndTokensIncreaseAcrossCalls() {
		long first = this.tokens.token(1);
		long second = this.tokens.token(1);
		assertThat(this.tokens.seen()).containsExactly("product:1=" + first, "product:1=" + second);
		assertThat(first).isLessThan(second);
	}

	@Test
	void methodWithSeveralKeysReadsEachByKey() {
		List<Long> tokens = this.tokens.transfer(2, 1);
		assertThat(tokens).hasSize(2).allSatisfy((token) -> assertThat(token).isPositive());
		assertThat(this.tokens.transfer(2, 1)).allSatisfy((token) -> assertThat(token).isGreaterThan(tokens.get(0)));
	}

	@Test
	void methodWithSeveralKeysAskingForOneLockIsToldTheKeys() {
		assertThatIllegalStateException().isThrownBy(() -> this.tokens.single(1, 2))
			.withMessageContaining("several locks [account:1, account:2]");
		assertThatIllegalStateException().isThrownBy(() -> this.tokens.unknown(1, 2, "account:3"))
			.withMessageContaining("does not hold lock 'account:3'")
			.withMessageContaining("it holds [account:1, account:2]");
	}

	@Test
	void nestedMethodIsSeenWhileItRunsAndTheOuterLockAgainAfterItReturns() {
		this.nesting.nested(3);
		assertThat(this.nesting.seen()).hasSize(2);
		assertThat(this.nesting.seen().get(0)).startsWith("order:3=").isEqualTo(this.nesting.seen().get(1));
		assertThat(this.tokens.seen()).singleElement().asString().startsWith("product:3=");
	}

	@Test
	void reenteredMethodSeesTheSameLockAndToken() {
		this.nesting.reentrant(4);
		assertThat(this.nesting.seen()).hasSize(2).allSatisfy((seen) -> assertThat(seen).startsWith("product:4="));
		assertThat(this.tokens.seen()).containsExactly(this.nesting.seen().get(0));
	}

	@Test
	void afterAMethodThrowsItsCallerSeesItsOwnLockAndNothingIsLeft() {
		this.nesting.survivesInnerFailure(5);
		assertThat(this.tokens.seen()).singleElement().asString().startsWith("failing=");
		assertThat(this.nesting.seen()).singleElement().asString().startsWith("order:5=");
		assertThatIllegalStateException().isThrownBy(this.tokens::fail).withMessage("boom");
		assertThat(CurrentLock.isPresent()).isFalse();
	}

	@Test
	void outsideTheMethodCurrentLockThrows() {
		this.tokens.token(6);
		assertThatIllegalStateException().isThrownBy(CurrentLock::fencingToken)
			.withMessageContaining("@DistributedLock method");
	}

	@Test
	void futureMethodSeesItsLockOnTheMethodsThreadOnly() {
		CompletableFuture<String> result = this.tokens.start("7", this.otherThread);
		assertThat(this.tokens.seen()).singleElement().asString().startsWith("job:7=");
		assertThat(result.join()).isEqualTo("none");
		assertThat(CurrentLock.isPresent()).isFalse();
	}

}
