package io.github.redislock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redislock.DistributedLock;
import io.github.redislock.DistributedLock.OnFailure;
import io.github.redislock.ReactiveCurrentLock;
import io.github.redislock.contract.CriticalSections;

/**
 * Beans with {@link DistributedLock @DistributedLock} methods that return a {@link Mono}
 * or a {@link Flux}: an overlap detector, methods that hold their lock until the test
 * lets them go, methods for each failure strategy, and nested methods of one key.
 */
@Configuration(proxyBeanMethods = false)
class ReactiveServicesConfiguration {

	@Bean
	ReactiveCounterService reactiveCounterService() {
		return new ReactiveCounterService();
	}

	@Bean
	ReactiveGateService reactiveGateService() {
		return new ReactiveGateService();
	}

	@Bean
	ReactiveInnerService reactiveInnerService() {
		return new ReactiveInnerService();
	}

	@Bean
	ReactiveOuterService reactiveOuterService(ReactiveInnerService inner) {
		return new ReactiveOuterService(inner);
	}

	/**
	 * The overlap detector of reactive methods: one counter per slot, incremented without
	 * atomicity across a thread hop, which only a lock held from the method's invocation
	 * to its publisher's end keeps exact; and each call's section, recorded so that
	 * overlapping calls of one slot are found.
	 */
	static class ReactiveCounterService {

		static final int SLOTS = 8;

		private final AtomicIntegerArray counts = new AtomicIntegerArray(SLOTS);

		private volatile CriticalSections sections = new CriticalSections();

		@DistributedLock(key = "reactive-counter:#slot", waitTime = "20s")
		public Mono<Integer> increment(int slot) {
			CriticalSections sections = this.sections;
			CriticalSections.Section section = enter(sections, slot);
			return unsafeIncrement(slot).doOnTerminate(() -> sections.exit(section))
				.doOnCancel(() -> sections.exit(section));
		}

		@DistributedLock(key = "reactive-counter:#slot", waitTime = "20s")
		public Flux<Integer> incrementMany(int slot, int times) {
			CriticalSections sections = this.sections;
			CriticalSections.Section section = enter(sections, slot);
			return Flux.range(0, times)
				.concatMap((i) -> unsafeIncrement(slot))
				.doOnTerminate(() -> sections.exit(section))
				.doOnCancel(() -> sections.exit(section));
		}

		/**
		 * Read, hop to a timer thread, write back one more: a lost update if unlocked.
		 */
		private Mono<Integer> unsafeIncrement(int slot) {
			return Mono.fromCallable(() -> this.counts.get(slot)).delayElement(Duration.ofMillis(1)).map((value) -> {
				this.counts.set(slot, value + 1);
				return value + 1;
			});
		}

		private CriticalSections.Section enter(CriticalSections sections, int slot) {
			// Token 0: these tests check exclusion, not the order of tokens.
			return sections.enter("reactive-counter:" + slot, this, 0);
		}

		public int count(int slot) {
			return this.counts.get(slot);
		}

		public int overlaps() {
			return this.sections.overlaps(true).size();
		}

		public void reset() {
			for (int slot = 0; slot < SLOTS; slot++) {
				this.counts.set(slot, 0);
			}
			this.sections = new CriticalSections();
		}

	}

	/**
	 * Methods that record when they are invoked and run until cancelled or given their
	 * work, and one per failure strategy on the {@code busy:} keys.
	 */
	static class ReactiveGateService {

		private final Set<String> invoked = ConcurrentHashMap.newKeySet();

		private final Set<String> running = ConcurrentHashMap.newKeySet();

		@DistributedLock(key = "gate:#name", waitTime = "20s")
		public Mono<String> hold(String name) {
			this.invoked.add(name);
			return Mono.<String>never()
				.doOnSubscribe((subscription) -> this.running.add(name))
				.doOnCancel(() -> this.running.remove(name));
		}

		@DistributedLock(key = "gate:#name", waitTime = "20s")
		public Flux<String> holdMany(String name) {
			this.invoked.add(name);
			return Flux.just("first")
				.concatWith(Flux.never())
				.doOnSubscribe((subscription) -> this.running.add(name))
				.doOnCancel(() -> this.running.remove(name));
		}

		@DistributedLock(key = { "account:#from", "account:#to" }, waitTime = "${locks.short-wait}")
		public Mono<String> transfer(long from, long to, Mono<String> work) {
			this.invoked.add("transfer:" + from + ":" + to);
			return work;
		}

		@DistributedLock(key = "busy:#id", waitTime = "${locks.short-wait}")
		public Mono<String> orThrow(long id) {
			this.invoked.add("orThrow");
			return Mono.just("ran");
		}

		@DistributedLock(key = "busy:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public Mono<String> orSkip(long id) {
			this.invoked.add("orSkip");
			return Mono.just("ran");
		}

		@DistributedLock(key = "busy:#id", waitTime = "0", onFailure = OnFailure.SKIP)
		public Flux<String> orSkipMany(long id) {
			this.invoked.add("orSkipMany");
			return Flux.just("ran");
		}

		@DistributedLock(key = "busy:#id", waitTime = "0", onFailure = OnFailure.FALLBACK, fallback = "recover")
		public Mono<String> orFallback(long id) {
			this.invoked.add("orFallback");
			return Mono.just("ran");
		}

		public Mono<String> recover(long id) {
			return Mono.just("fallback:" + id);
		}

		@DistributedLock(key = "busy:#id", waitTime = "0", onFailure = OnFailure.FALLBACK, fallback = "recoverMany")
		public Flux<String> orFallbackMany(long id) {
			this.invoked.add("orFallbackMany");
			return Flux.just("ran");
		}

		public Flux<String> recoverMany(long id) {
			return Flux.just("fallback", Long.toString(id));
		}

		@DistributedLock(key = "token:#id")
		public Mono<Long> token(long id) {
			return ReactiveCurrentLock.fencingToken();
		}

		public Set<String> invoked() {
			return this.invoked;
		}

		public Set<String> running() {
			return this.running;
		}

	}

	static class ReactiveOuterService {

		private final ReactiveInnerService inner;

		ReactiveOuterService(ReactiveInnerService inner) {
			this.inner = inner;
		}

		/** Its token and the inner call's, which a lock not re-entered would time out. */
		@DistributedLock(key = "nest:#id", waitTime = "2s")
		public Mono<List<Long>> outer(long id) {
			return ReactiveCurrentLock.fencingToken().zipWith(this.inner.inner(id), List::of);
		}

	}

	static class ReactiveInnerService {

		@DistributedLock(key = "nest:#id", waitTime = "2s")
		public Mono<Long> inner(long id) {
			return ReactiveCurrentLock.fencingToken();
		}

	}

}
