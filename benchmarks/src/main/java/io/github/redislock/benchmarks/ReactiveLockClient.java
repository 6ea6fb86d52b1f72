package io.github.redislock.benchmarks;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * One implementation's reactive API, as the rows of a reactive implementation use it:
 * concurrent chains take turns on a lock, where the blocking rows have threads, and no
 * thread waits for a lock meanwhile.
 * <p>
 * The blocking methods of {@link LockClient} take the lock with the same library's
 * blocking API on the same connections: the scenarios use them only where nothing is
 * measured, as the holder of the waiters scenario, in another JVM, does.
 */
interface ReactiveLockClient extends LockClient {

	/**
	 * Run the action under the exclusive lock of the given name, with the
	 * implementation's default lease: the lock is requested on subscription (waiting up
	 * to {@link #WAIT_LIMIT}), the action subscribed to once it is granted, and the lock
	 * released when the action ends, before the result is emitted.
	 * @param <T> the result type
	 * @param key the lock name
	 * @param action the critical section
	 * @return the action's result; an error when the lock was not granted in time
	 */
	<T> Mono<T> execute(String key, Mono<T> action);

	/**
	 * The same library's blocking client on the same connections, which the blocking
	 * methods go to.
	 * @return the blocking client
	 */
	LockClient blocking();

	@Override
	default Release acquire(String key, @Nullable Duration lease) {
		return blocking().acquire(key, lease);
	}

	@Override
	default void close() {
		blocking().close();
	}

}
