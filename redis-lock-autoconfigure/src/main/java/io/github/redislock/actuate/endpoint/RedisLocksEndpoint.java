package io.github.redislock.actuate.endpoint;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockSnapshot;

/**
 * {@link Endpoint @Endpoint} that lists the locks this instance holds and the locks its
 * threads wait for, by lock name. Read-only; it shows lock names, thread names and times,
 * nothing of the work done under the locks nor any other method argument.
 *
 * @author redis-lock
 */
@Endpoint(id = "redislocks")
public class RedisLocksEndpoint {

	private final LockDiagnostics diagnostics;

	/**
	 * Create an endpoint for an engine.
	 * @param diagnostics the engine's diagnostics, such as
	 * {@code lockEngine.diagnostics()}
	 */
	public RedisLocksEndpoint(LockDiagnostics diagnostics) {
		this.diagnostics = diagnostics;
	}

	/**
	 * Return the locks held and awaited now.
	 * @return a description of the locks
	 */
	@ReadOperation
	public RedisLocksDescriptor locks() {
		LockSnapshot snapshot = this.diagnostics.snapshot();
		List<HeldLockDescriptor> held = snapshot.held()
			.stream()
			.map((lock) -> new HeldLockDescriptor(lock.key(), lock.thread(), lock.heldSince(),
					Math.max(0, lock.leaseLeft().toMillis()), lock.renewed(), lock.fencingToken(), lock.lost()))
			.toList();
		List<AwaitedLockDescriptor> awaited = snapshot.awaited()
			.stream()
			.map((lock) -> new AwaitedLockDescriptor(lock.key(), lock.waiters()))
			.toList();
		return new RedisLocksDescriptor(held, awaited,
				this.diagnostics.subscriptionStatus().name().toLowerCase(Locale.ROOT));
	}

	/**
	 * Description of the locks of an instance.
	 *
	 * @param held the locks it holds
	 * @param awaited the locks its threads wait for
	 * @param subscription the state of the connection that receives release messages:
	 * {@code none} before any thread waited, {@code connected} or {@code disconnected}
	 */
	public record RedisLocksDescriptor(List<HeldLockDescriptor> held, List<AwaitedLockDescriptor> awaited,
			String subscription) implements OperationResponseBody {

	}

	/**
	 * Description of a held lock.
	 *
	 * @param key the lock name
	 * @param thread the name of the holding thread, or {@code null} when the lock belongs
	 * to its acquisition (a non-reentrant request) rather than to a thread
	 * @param heldSince when this instance acquired it
	 * @param leaseLeftMillis how long its lease has left unless renewed, in milliseconds
	 * @param renewed whether the watchdog renews the lease
	 * @param fencingToken the fencing token of the hold
	 * @param lost whether the lock was found lost; its holder learns it at release
	 */
	public record HeldLockDescriptor(String key, @Nullable String thread, Instant heldSince, long leaseLeftMillis,
			boolean renewed, long fencingToken, boolean lost) {

	}

	/**
	 * Description of a lock that threads wait for.
	 *
	 * @param key the lock name
	 * @param waiters how many threads of this instance wait for it
	 */
	public record AwaitedLockDescriptor(String key, int waiters) {

	}

}
