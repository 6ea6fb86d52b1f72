package io.github.redislock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The locks an engine holds and the locks its threads wait for, at one moment, for
 * diagnostics. Lock names and modes only: nothing of the work done under them.
 *
 * <p>
 * Each entry says its {@link LockMode}, so that the locks and the permits of a name are
 * told apart: each {@link LockMode#PERMIT permit} held here is a {@link HeldLock} of its
 * own, and the threads waiting here for permits of a name are one {@link AwaitedLock}.
 *
 * @param held the locks and permits held through the engine, one entry per hold
 * @param awaited the locks and permits that threads of the engine wait for, one entry per
 * lock name and mode
 * @author redis-lock
 * @see LockDiagnostics#snapshot()
 */
public record LockSnapshot(List<HeldLock> held, List<AwaitedLock> awaited) {

	/**
	 * A lock or permit held through the engine.
	 *
	 * @param key the lock name, without the key prefix
	 * @param mode the mode it is held in: {@link LockMode#EXCLUSIVE} for an exclusive or
	 * fair lock, {@link LockMode#READ} or {@link LockMode#WRITE} for a side of a
	 * read/write lock, {@link LockMode#PERMIT} for one of a name's permits
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
	public record HeldLock(String key, LockMode mode, @Nullable String thread, Instant heldSince, Duration leaseLeft,
			boolean renewed, long fencingToken, boolean lost) {
	}

	/**
	 * A lock or the permits of a name that threads of the engine wait for, in one mode.
	 * The readers and the writers waiting for one read/write lock are two entries.
	 *
	 * @param key the lock name, without the key prefix
	 * @param mode the mode they wait for, as {@link HeldLock#mode()}
	 * @param waiters how many threads (or pending acquisitions) wait for it in that mode
	 */
	public record AwaitedLock(String key, LockMode mode, int waiters) {
	}

}
