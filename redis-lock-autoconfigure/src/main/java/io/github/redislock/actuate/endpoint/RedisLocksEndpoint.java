package io.github.redislock.actuate.endpoint;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockMode;
import io.github.redislock.LockSnapshot;

/**
 * {@link Endpoint @Endpoint} that lists the locks this instance holds and the locks its
 * threads wait for, by lock name and {@link LockMode mode}, and per name the permits held
 * and awaited here. Read-only; it shows lock names, thread names and times, nothing of
 * the work done under the locks nor any other method argument. It reads this instance's
 * state only and sends no command to Redis: how many instances hold a name's permits
 * across the fleet is in Redis, not here.
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
			.map((lock) -> new HeldLockDescriptor(lock.key(), lock.mode(), lock.thread(), lock.heldSince(),
					Math.max(0, lock.leaseLeft().toMillis()), lock.renewed(), lock.fencingToken(), lock.lost()))
			.toList();
		List<AwaitedLockDescriptor> awaited = snapshot.awaited()
			.stream()
			.map((lock) -> new AwaitedLockDescriptor(lock.key(), lock.mode(), lock.waiters()))
			.toList();
		return new RedisLocksDescriptor(held, awaited, permits(snapshot),
				this.diagnostics.subscriptionStatus().name().toLowerCase(Locale.ROOT));
	}

	/** The permits of the snapshot counted per name, in the order of their names. */
	private static List<PermitsDescriptor> permits(LockSnapshot snapshot) {
		Map<String, int[]> counts = new TreeMap<>();
		snapshot.held()
			.stream()
			.filter((lock) -> lock.mode() == LockMode.PERMIT)
			.forEach((lock) -> counts.computeIfAbsent(lock.key(), (key) -> new int[2])[0]++);
		snapshot.awaited()
			.stream()
			.filter((lock) -> lock.mode() == LockMode.PERMIT)
			.forEach((lock) -> counts.computeIfAbsent(lock.key(), (key) -> new int[2])[1] += lock.waiters());
		return counts.entrySet()
			.stream()
			.map((entry) -> new PermitsDescriptor(entry.getKey(), entry.getValue()[0], entry.getValue()[1]))
			.toList();
	}

	/**
	 * Description of the locks of an instance.
	 *
	 * @param held the locks and permits it holds, one entry per hold
	 * @param awaited the locks and permits its threads wait for, one entry per lock name
	 * and mode
	 * @param permits per name of which it holds or awaits permits, how many
	 * @param subscription the state of the connection that receives release messages:
	 * {@code none} before any thread waited, {@code connected} or {@code disconnected}
	 */
	public record RedisLocksDescriptor(List<HeldLockDescriptor> held, List<AwaitedLockDescriptor> awaited,
			List<PermitsDescriptor> permits, String subscription) implements OperationResponseBody {

	}

	/**
	 * Description of a held lock or permit.
	 *
	 * @param key the lock name
	 * @param mode the mode it is held in, {@link LockMode#PERMIT} for a permit
	 * @param thread the name of the holding thread, or {@code null} when the lock belongs
	 * to its acquisition (a non-reentrant request) rather than to a thread
	 * @param heldSince when this instance acquired it
	 * @param leaseLeftMillis how long its lease has left unless renewed, in milliseconds
	 * @param renewed whether the watchdog renews the lease
	 * @param fencingToken the fencing token of the hold
	 * @param lost whether the lock was found lost; its holder learns it at release
	 */
	public record HeldLockDescriptor(String key, LockMode mode, @Nullable String thread, Instant heldSince,
			long leaseLeftMillis, boolean renewed, long fencingToken, boolean lost) {

	}

	/**
	 * Description of a lock, or of the permits of a name, that threads wait for in one
	 * mode.
	 *
	 * @param key the lock name
	 * @param mode the mode they wait for, {@link LockMode#PERMIT} for a permit
	 * @param waiters how many threads of this instance wait for it in that mode
	 */
	public record AwaitedLockDescriptor(String key, LockMode mode, int waiters) {

	}

	/**
	 * The permits of a name held and awaited by this instance; other instances may hold
	 * more of them.
	 *
	 * @param key the name of the permits
	 * @param held how many of its permits this instance holds
	 * @param waiting how many threads of this instance wait for one
	 */
	public record PermitsDescriptor(String key, int held, int waiting) {

	}

}
