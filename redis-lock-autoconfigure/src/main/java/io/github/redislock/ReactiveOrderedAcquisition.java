package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Takes several locks for one reactive action, one after another within one wait budget,
 * for {@link ReactiveLockOperations#execute(List, Mono)} and
 * {@link ReactiveLockOperations#executeMany(List, Flux)}: the reactive counterpart of
 * {@link OrderedAcquisition}. Each lock is an execution nested in the previous one's, so
 * the locks are released in reverse order and a failure or a cancel gives back those
 * already taken; each waits only for what the earlier ones left of the budget.
 *
 * @author redis-lock
 */
final class ReactiveOrderedAcquisition {

	private ReactiveOrderedAcquisition() {
	}

	static <T> Mono<T> execute(ReactiveLockOperations locks, List<LockRequest> requests, @Nullable Duration budget,
			Mono<T> action) {
		check(requests, action);
		return Mono.defer(() -> nest(requests, budget, action, Mono::defer, locks::execute, Mono::onErrorMap));
	}

	static <T> Flux<T> executeMany(ReactiveLockOperations locks, List<LockRequest> requests, @Nullable Duration budget,
			Flux<T> action) {
		check(requests, action);
		return Flux.defer(() -> nest(requests, budget, action, Flux::defer, locks::executeMany, Flux::onErrorMap));
	}

	/**
	 * One subscription's nesting: the first request outermost, the action innermost, and
	 * an acquisition's timeout reported against the whole budget, as the caller waited
	 * for all of it.
	 */
	private static <P> P nest(List<LockRequest> requests, @Nullable Duration budget, P action,
			Function<Supplier<P>, P> defer, BiFunction<LockRequest, P, P> execute,
			BiFunction<P, Function<Throwable, Throwable>, P> onErrorMap) {
		long start = System.nanoTime();
		AtomicBoolean running = new AtomicBoolean();
		P inner = defer.apply(() -> {
			running.set(true);
			return action;
		});
		for (int i = requests.size() - 1; i > 0; i--) {
			LockRequest request = requests.get(i);
			P next = inner;
			inner = defer.apply(() -> execute.apply(remaining(request, budget, start), next));
		}
		P all = execute.apply((budget != null) ? requests.get(0).waitTime(budget) : requests.get(0), inner);
		if (budget == null || requests.size() == 1) {
			return all;
		}
		return onErrorMap.apply(all, (ex) -> (ex instanceof LockTimeoutException timeout && !running.get())
				? new LockTimeoutException(timeout.getKey(), budget) : ex);
	}

	private static LockRequest remaining(LockRequest request, @Nullable Duration budget, long start) {
		if (budget == null) {
			return request;
		}
		// Elapsed time, not a deadline: a budget near Long.MAX_VALUE nanoseconds would
		// overflow one.
		long budgetNanos;
		try {
			budgetNanos = budget.toNanos();
		}
		catch (ArithmeticException ex) {
			budgetNanos = Long.MAX_VALUE;
		}
		return request.waitTime(Duration.ofNanos(Math.max(0, budgetNanos - (System.nanoTime() - start))));
	}

	private static void check(@Nullable List<LockRequest> requests, @Nullable Object action) {
		if (requests == null || requests.isEmpty()) {
			throw new IllegalArgumentException("A reactive execution needs at least one lock request");
		}
		// Not contains(null): immutable lists throw for it.
		if (requests.stream().anyMatch(Objects::isNull)) {
			throw new IllegalArgumentException("The lock requests must not contain null: " + requests);
		}
		if (action == null) {
			throw new IllegalArgumentException(
					"The action to run under locks " + requests.stream().map(LockRequest::key).toList()
							+ " must not be null; pass Mono.empty() or Flux.empty() for none");
		}
	}

}
