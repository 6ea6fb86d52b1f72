package io.github.redislock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The locks an engine holds and the locks its threads wait for, at one moment, for
 * diagnostics. Lock names only: nothing of the work done under them.
 *
 * @param held the locks held through the engine, by lock name
 * @param awaited the locks that threads of the engine wait for, by lock name
 * @author redis-lock
 * @see LockDiagnostics#snapshot()
 */
public record LockSnapshot(List<HeldLock> held, List<AwaitedLock> awaited) {

	/**
	 * A lock held through the engine.
	 *
	 * @param key the lock name, without the key prefix
	 * @param thread the name of the thread that holds it, or {@code null} when the lock
	 * belongs to its acquisition rather than to a thread (a non-reentrant request, such
	 * as a {@code @DistributedLock} method that returns a {@code CompletableFuture})
	 * @param heldSince when this JVM acquired it (or was handed it)
	 * @param leaseLeft how long the lease has left unless it is renewed; zero or negative
	 * once it ran out
	 * @param renewed whether the watchdog renews the lease
	 * @param fencingToken the fencing token of the hold
	 * @param lost whether the lock was found lost; the holder learns it when it releases
	 */
	public record HeldLock(String key, @Nullable String thread, Instant heldSince, Duration leaseLeft, boolean renewed,
			long fencingToken, boolean lost) {
	}

	/**
	 * A lock that threads of the engine wait for.
	 *
	 * @param key the lock name, without the key prefix
	 * @param waiters how many threads wait for it
	 */
	public record AwaitedLock(String key, int waiters) {
	}

}
