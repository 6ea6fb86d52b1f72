package io.github.redislock;

import java.util.List;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Distributed locks for reactive code, implemented by {@link ReactiveLockTemplate}: each
 * method runs a {@link Mono} or {@link Flux} under a lock, and no thread waits for the
 * lock meanwhile.
 *
 * <pre class="code">
 * Mono&lt;Receipt&gt; receipt = reactiveLocks.execute("product:" + id, checkout.purchase(id));
 * </pre>
 *
 * <ul>
 * <li>The lock is requested when the result is subscribed to, and the action is
 * subscribed to once the lock is granted, in the same Reactor Context (plus the lock,
 * which {@link ReactiveCurrentLock} reads).</li>
 * <li>The lock is released when the action completes, fails or is cancelled; a subscriber
 * that cancels while the lock is awaited withdraws the acquisition, and nothing stays
 * locked.</li>
 * <li>Waiting sends no command and blocks no thread: the release message, or the holder's
 * lease running out, completes it.</li>
 * <li>Locks are reentrant for the chain, not the thread: an {@code execute} inside the
 * action of another {@code execute} of the same key (in the same Reactor Context) is
 * granted at once, without a round trip, and shares its lock and fencing token; any other
 * chain, even on the same thread, waits like another JVM would, and so do threads that
 * lock with {@link LockOperations}.</li>
 * </ul>
 * The exceptions are those of {@link LockOperations}, as error signals: a wait that runs
 * out ends the result with {@link LockTimeoutException}, a lock lost while the action ran
 * with {@link LockLostException}, a Redis failure with {@link LockAccessException}; a
 * null or invalid argument throws {@link IllegalArgumentException} at once, when the
 * result is assembled.
 *
 * @author redis-lock
 */
public interface ReactiveLockOperations {

	/**
	 * Run the action under the lock of the given name, waiting for it up to the default
	 * wait time. See {@link #execute(LockRequest, Mono)}.
	 * @param <T> the result type
	 * @param key the lock name
	 * @param action the work to do under the lock
	 * @return the action's result, emitted once the lock was released
	 * @throws IllegalArgumentException if the key breaks {@link LockRules#key} or the
	 * action is null
	 */
	default <T> Mono<T> execute(String key, Mono<T> action) {
		return execute(LockRequest.of(key), action);
	}

	/**
	 * Run the action under the requested lock: acquire it on subscription, subscribe to
	 * the action once granted, release it when the action completes, fails or is
	 * cancelled. The action's value is emitted after the release, so that a value
	 * computed without protection is never emitted as if it were: when the lock was lost
	 * meanwhile the result ends with {@link LockLostException} instead.
	 * @param <T> the result type
	 * @param request the lock name, kind, wait and lease
	 * @param action the work to do under the lock
	 * @return the action's result; fails with {@link LockTimeoutException} when the lock
	 * was not granted within the wait time, {@link LockLostException} when it was lost
	 * while the action ran, {@link LockAccessException} when Redis failed, or
	 * {@link IllegalStateException} when a read lock of the same chain asks to upgrade
	 * @throws IllegalArgumentException if the request or the action is null
	 */
	<T> Mono<T> execute(LockRequest request, Mono<T> action);

	/**
	 * Run the action under the lock of the given name, waiting for it up to the default
	 * wait time. See {@link #executeMany(LockRequest, Flux)}.
	 * @param <T> the element type
	 * @param key the lock name
	 * @param action the work to do under the lock
	 * @return the action's elements
	 * @throws IllegalArgumentException if the key breaks {@link LockRules#key} or the
	 * action is null
	 */
	default <T> Flux<T> executeMany(String key, Flux<T> action) {
		return executeMany(LockRequest.of(key), action);
	}

	/**
	 * Run the action under the requested lock: acquire it on subscription, subscribe to
	 * the action once granted, release it when the action completes, fails or is
	 * cancelled. Elements are passed on as they come, while the lock is held: once the
	 * lock is found lost, the action is cancelled and the result ends with
	 * {@link LockLostException}, and so it does, instead of completing, when the release
	 * finds the lock lost.
	 * @param <T> the element type
	 * @param request the lock name, kind, wait and lease
	 * @param action the work to do under the lock
	 * @return the action's elements; fails as {@link #execute(LockRequest, Mono)} does
	 * @throws IllegalArgumentException if the request or the action is null
	 */
	<T> Flux<T> executeMany(LockRequest request, Flux<T> action);

	/**
	 * Run the action under several locks, taken one after another in the order given
	 * within one wait budget, the first request's wait time (or, when it has none, each
	 * lock waits as its own request says): each lock is an execution of
	 * {@link #execute(LockRequest, Mono)} nested in the previous one's, so the action
	 * runs once all are granted, they are released in reverse order, and a timeout or a
	 * cancel gives back those already taken. Callers that lock the same keys should give
	 * them in the same order (sorted, for instance), or two of them could each hold a
	 * lock the other waits for until their budgets run out.
	 * @param <T> the result type
	 * @param requests the locks, in the order to take them
	 * @param action the work to do under the locks
	 * @return the action's result, emitted once every lock was released; a wait that runs
	 * out fails with a {@link LockTimeoutException} that names the lock and the whole
	 * budget
	 * @throws IllegalArgumentException if the requests are empty or contain null, or the
	 * action is null
	 */
	default <T> Mono<T> execute(List<LockRequest> requests, Mono<T> action) {
		return ReactiveOrderedAcquisition.execute(this, requests,
				(requests != null && !requests.isEmpty() && requests.get(0) != null) ? requests.get(0).waitTime()
						: null,
				action);
	}

	/**
	 * Run the action under several locks, taken as {@link #execute(List, Mono)
	 * execute(List, Mono)} takes them, each an execution of
	 * {@link #executeMany(LockRequest, Flux)} nested in the previous one's.
	 * @param <T> the element type
	 * @param requests the locks, in the order to take them
	 * @param action the work to do under the locks
	 * @return the action's elements; fails as {@link #execute(List, Mono)} does
	 * @throws IllegalArgumentException if the requests are empty or contain null, or the
	 * action is null
	 */
	default <T> Flux<T> executeMany(List<LockRequest> requests, Flux<T> action) {
		return ReactiveOrderedAcquisition.executeMany(this, requests,
				(requests != null && !requests.isEmpty() && requests.get(0) != null) ? requests.get(0).waitTime()
						: null,
				action);
	}

}
