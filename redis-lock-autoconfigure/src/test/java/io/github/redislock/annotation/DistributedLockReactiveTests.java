package io.github.redislock.annotation;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.beans.factory.annotation.Autowired;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockEngine;
import io.github.redislock.LockHandle;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.annotation.ReactiveServicesConfiguration.ReactiveCounterService;
import io.github.redislock.annotation.ReactiveServicesConfiguration.ReactiveGateService;
import io.github.redislock.annotation.ReactiveServicesConfiguration.ReactiveOuterService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link io.github.redislock.DistributedLock @DistributedLock} on methods that return a
 * {@link Mono} or a {@link Flux}: the lock is held from subscription to termination, the
 * method is invoked only once it is granted, cancelling at any stage leaves nothing
 * locked, the failure strategies answer with publishers, and nested methods of one key in
 * one chain re-enter their lock.
 */
@LockedServicesTest
class DistributedLockReactiveTests {

	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	@Autowired
	private ReactiveCounterService counter;

	@Autowired
	private ReactiveGateService gate;

	@Autowired
	private ReactiveOuterService outer;

	@Autowired
	private LockEngine engine;

	@Autowired
	private LockProbe probe;

	@BeforeEach
	void reset() {
		this.probe.flush();
		this.counter.reset();
		this.gate.invoked().clear();
		this.gate.running().clear();
	}

	@Test
	void monoMethodHoldsTheLockFromSubscriptionToTermination() {
		Flux.range(0, 200).flatMap((i) -> this.counter.increment(i % 4), 200).blockLast(LONG_WAIT);
		for (int slot = 0; slot < 4; slot++) {
			assertThat(this.counter.count(slot)).as("slot %d", slot).isEqualTo(50);
		}
		assertThat(this.counter.overlaps()).isZero();
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void fluxMethodHoldsTheLockFromSubscriptionToTermination() {
		List<Integer> elements = Flux.range(0, 40)
			.flatMap((i) -> this.counter.incrementMany(4 + i % 4, 5), 40)
			.collectList()
			.block(LONG_WAIT);
		assertThat(elements).hasSize(200);
		for (int slot = 4; slot < 8; slot++) {
			assertThat(this.counter.count(slot)).as("slot %d", slot).isEqualTo(50);
		}
		assertThat(this.counter.overlaps()).isZero();
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void cancelBeforeTheGrantLeavesNothingLocked() {
		for (int i = 0; i < 20; i++) {
			this.gate.hold("early:" + i).subscribe().dispose();
			this.gate.holdMany("early-many:" + i).subscribe().dispose();
		}
		await().untilAsserted(() -> assertThat(this.probe.held()).isEmpty());
		await().until(() -> diagnostics().heldCount() == 0);
	}

	@Test
	void cancelWhileWaitingWithdrawsTheWaiterAndNeverInvokesTheMethod() {
		LockHandle held = this.probe.holdElsewhere("gate:waiting");
		Mono<String> result = this.gate.hold("waiting");
		assertThat(this.gate.invoked()).as("invoked when called, before subscription").isEmpty();
		Disposable subscription = result.subscribe();
		await().until(() -> diagnostics().waiterCount() == 1);
		assertThat(this.gate.invoked()).as("invoked while the lock was held elsewhere").isEmpty();
		subscription.dispose();
		await().until(() -> diagnostics().waiterCount() == 0);
		held.close();
		assertThat(this.probe.held()).isEmpty();
		assertThat(this.gate.invoked()).isEmpty();
	}

	@Test
	void cancelWhileRunningReleasesTheLock() {
		Disposable mono = this.gate.hold("running").subscribe();
		Disposable flux = this.gate.holdMany("running-many").subscribe();
		await().until(() -> this.gate.running().containsAll(List.of("running", "running-many")));
		assertThat(this.probe.held()).containsExactlyInAnyOrder("gate:running", "gate:running-many");
		mono.dispose();
		flux.dispose();
		await().untilAsserted(() -> assertThat(this.probe.held()).isEmpty());
		assertThat(this.gate.running()).isEmpty();
	}

	@Test
	void severalKeysAreHeldTogetherUntilTheWorkEnds() {
		Sinks.One<String> work = Sinks.one();
		Mono<String> result = this.gate.transfer(2, 1, work.asMono()).cache();
		result.subscribe();
		await().untilAsserted(() -> assertThat(this.probe.held()).containsExactlyInAnyOrder("account:1", "account:2"));
		work.tryEmitValue("moved");
		assertThat(result.block(LONG_WAIT)).isEqualTo("moved");
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void severalKeysTimeOutWithinOneBudgetAndGiveBackThoseTaken() {
		try (LockHandle held = this.probe.holdElsewhere("account:2")) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> this.gate.transfer(1, 2, Mono.just("moved")).block(LONG_WAIT))
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("account:2"))
				.satisfies((ex) -> assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(200)));
			assertThat(this.probe.held()).containsExactly("account:2");
		}
		assertThat(this.gate.invoked()).isEmpty();
	}

	@Test
	void lockHeldElsewhereThrowsSkipsOrFallsBackWithoutInvokingTheMethod() {
		try (LockHandle held = this.probe.holdElsewhere("busy:1")) {
			assertThatExceptionOfType(LockTimeoutException.class)
				.isThrownBy(() -> this.gate.orThrow(1).block(LONG_WAIT))
				.withMessageContaining("busy:1");
			assertThat(this.gate.orSkip(1).blockOptional(LONG_WAIT)).isEmpty();
			assertThat(this.gate.orSkipMany(1).collectList().block(LONG_WAIT)).isEmpty();
			assertThat(this.gate.orFallback(1).block(LONG_WAIT)).isEqualTo("fallback:1");
			assertThat(this.gate.orFallbackMany(1).collectList().block(LONG_WAIT)).containsExactly("fallback", "1");
		}
		assertThat(this.gate.invoked()).isEmpty();
		assertThat(this.gate.orSkip(1).block(LONG_WAIT)).isEqualTo("ran");
		assertThat(this.gate.orFallbackMany(1).collectList().block(LONG_WAIT)).containsExactly("ran");
	}

	@Test
	void nestedMethodOfTheSameKeyInTheSameChainReentersTheLock() {
		List<Long> tokens = this.outer.outer(1).block(LONG_WAIT);
		assertThat(tokens).hasSize(2).allSatisfy((token) -> assertThat(token).isPositive());
		assertThat(tokens.get(1)).as("the inner call's token").isEqualTo(tokens.get(0));
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void methodReadsItsFencingTokenFromTheContext() {
		long first = this.gate.token(1).block(LONG_WAIT);
		long second = this.gate.token(1).block(LONG_WAIT);
		assertThat(first).isPositive().isLessThan(second);
	}

	private LockDiagnostics diagnostics() {
		return this.engine.diagnostics();
	}

}
