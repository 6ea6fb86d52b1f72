package io.github.redislock.benchmarks;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiFunction;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

import io.github.redislock.benchmarks.LockClient.Kind;

/**
 * The implementations under comparison, each in its default configuration, and the kinds
 * of lock each has.
 */
enum Implementation {

	/** This project's {@code LockTemplate}. */
	REDIS_LOCK("redis-lock", RedisLockClient::new, EnumSet.allOf(Kind.class)),

	/**
	 * redis-lock through Spring Integration's {@code LockRegistry}: its
	 * {@code DistributedLockRegistry}, beside Spring Integration's own registries. Its
	 * locks are renewed by the engine's watchdog, as redis-lock's own.
	 */
	REDIS_LOCK_REGISTRY("redis-lock DistributedLockRegistry", DistributedLockRegistryClient::new,
			EnumSet.of(Kind.EXCLUSIVE, Kind.WATCHDOG)),

	/**
	 * Redisson's {@code RLock}, {@code RFairLock}, {@code RReadWriteLock} and, for
	 * permits, {@code RPermitExpirableSemaphore}.
	 */
	REDISSON("Redisson RLock", RedissonLockClient::new, EnumSet.allOf(Kind.class)),

	/**
	 * Redisson's {@code RSemaphore}: permits only, no lock, so that only the scenarios of
	 * permits run it and no other names it as skipped.
	 */
	REDISSON_SEMAPHORE("Redisson RSemaphore", RedissonSemaphoreClient::new, EnumSet.of(Kind.PERMIT)),

	/**
	 * This project's {@code ReactiveLockTemplate}: reactive chains in place of threads,
	 * in the scenarios that name the reactive rows.
	 */
	REDIS_LOCK_REACTIVE("redis-lock ReactiveLockTemplate", RedisLockReactiveClient::new),

	/**
	 * Redisson's {@code RLockReactive}, an owner id per acquisition: reactive chains in
	 * place of threads, in the scenarios that name the reactive rows.
	 */
	REDISSON_REACTIVE("Redisson RLockReactive", RedissonReactiveLockClient::new),

	/** Spring Integration's {@code RedisLockRegistry} polling every 100 ms. */
	SI_SPIN("Spring Integration SPIN_LOCK",
			(host, port) -> new SpringIntegrationLockClient(host, port, RedisLockType.SPIN_LOCK)),

	/** Spring Integration's {@code RedisLockRegistry} woken by pub/sub. */
	SI_PUB_SUB("Spring Integration PUB_SUB_LOCK",
			(host, port) -> new SpringIntegrationLockClient(host, port, RedisLockType.PUB_SUB_LOCK)),

	/** {@code SET NX PX} and a compare-and-delete script on raw Lettuce: no waiting. */
	RAW_FLOOR("raw floor (SET NX PX + Lua CAD)", RawFloorLockClient::new),

	/**
	 * The raw floor's commands sent through Spring Data's {@code StringRedisTemplate}.
	 */
	SPRING_DATA_FLOOR("floor via Spring Data template", SpringDataFloorLockClient::new),

	/**
	 * A limit, not a peer: a JVM-local fair {@code ReentrantLock} around the same
	 * critical section. No lock that serves waiters in order does better within one JVM.
	 */
	LIMIT_LOCAL_FAIR("limit: local fair ReentrantLock", (host, port) -> new LocalLockClient(true), limitKinds()),

	/**
	 * A limit, not a peer: a JVM-local unfair {@code ReentrantLock}, which lets a thread
	 * that asks barge ahead of those that wait.
	 */
	LIMIT_LOCAL_UNFAIR("limit: local unfair ReentrantLock", (host, port) -> new LocalLockClient(false), limitKinds()),

	/**
	 * A limit, not a peer: the critical section alone, on one thread, with no lock at
	 * all; nothing that serializes the critical section does better, in any number of
	 * JVMs.
	 */
	LIMIT_SINGLE_THREAD("limit: critical section alone, one thread", (host, port) -> new NoLockClient(), limitKinds());

	private final String title;

	private final BiFunction<String, Integer, LockClient> factory;

	private final Set<Kind> kinds;

	Implementation(String title, BiFunction<String, Integer, LockClient> factory) {
		this(title, factory, EnumSet.of(Kind.EXCLUSIVE));
	}

	Implementation(String title, BiFunction<String, Integer, LockClient> factory, Set<Kind> kinds) {
		this.title = title;
		this.factory = factory;
		this.kinds = kinds;
	}

	String title() {
		return this.title;
	}

	/**
	 * The title of the implementation's lock of the given kind, where that lock has a
	 * name of its own: {@code Redisson RFairLock}.
	 */
	String title(Kind kind) {
		if (this == REDISSON) {
			return switch (kind) {
				case EXCLUSIVE, WATCHDOG -> this.title;
				case FAIR -> "Redisson RFairLock";
				case READ_WRITE -> "Redisson RReadWriteLock";
				case PERMIT -> "Redisson RPermitExpirableSemaphore";
			};
		}
		if (this == REDIS_LOCK && kind == Kind.PERMIT) {
			return "redis-lock LockRequest.permit";
		}
		return this.title;
	}

	/** Whether the implementation has the given kind of lock. */
	boolean supports(Kind kind) {
		return this.kinds.contains(kind);
	}

	/** The name used on the command line, such as {@code si-pub-sub}. */
	String id() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * Redis data commands the implementation sends itself rather than from a Lua script,
	 * so that {@link CommandCounts} counts them as round trips.
	 * @return lower-case command names
	 */
	Set<String> directCommands() {
		return isFloor() ? Set.of("set") : Set.of();
	}

	/** Whether this is one of the floors, which lock but cannot wait. */
	boolean isFloor() {
		return this == RAW_FLOOR || this == SPRING_DATA_FLOOR;
	}

	/**
	 * Whether this is a reactive API, whose client is a {@link ReactiveLockClient}: only
	 * the scenarios that name the reactive rows run it, and it is no peer in redis-lock's
	 * targets, which compare the blocking APIs.
	 */
	boolean isReactive() {
		return this == REDIS_LOCK_REACTIVE || this == REDISSON_REACTIVE;
	}

	/**
	 * Whether this has permits only, no lock: only the scenarios of permits run it, and
	 * no other names it as skipped.
	 */
	boolean isPermitsOnly() {
		return this == REDISSON_SEMAPHORE;
	}

	/**
	 * Whether this is redis-lock itself, blocking or reactive: its failure fails the run.
	 */
	boolean isRedisLock() {
		return this == REDIS_LOCK || this == REDIS_LOCK_REACTIVE;
	}

	boolean isPeer() {
		return this == REDISSON || this == SI_SPIN || this == SI_PUB_SUB;
	}

	/**
	 * Whether this is a limit: what no lock could beat on the same machine, shown beside
	 * the locks but never compared with them as a peer.
	 */
	boolean isLimit() {
		return this == LIMIT_LOCAL_FAIR || this == LIMIT_LOCAL_UNFAIR || this == LIMIT_SINGLE_THREAD;
	}

	/**
	 * What the limits stand in for: whatever exclusive or fair lock a scenario takes,
	 * since they show what a lock could reach, not which lock kinds they have.
	 */
	private static Set<Kind> limitKinds() {
		return EnumSet.of(Kind.EXCLUSIVE, Kind.FAIR);
	}

	LockClient open(String host, int port) {
		return this.factory.apply(host, port);
	}

	static Implementation fromId(String id) {
		for (Implementation implementation : values()) {
			if (implementation.id().equals(id)) {
				return implementation;
			}
		}
		throw new IllegalArgumentException("Unknown implementation '" + id + "'");
	}

}
