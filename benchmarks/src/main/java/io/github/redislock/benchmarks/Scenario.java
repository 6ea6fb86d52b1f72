package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.redislock.benchmarks.LockClient.Kind;

/**
 * The scenarios, in the order they run, each in a fresh JVM per implementation. A
 * scenario runs the implementations it suits that have its kind of lock; the others are
 * skipped, not failed.
 */
enum Scenario {

	/** One thread locking and releasing distinct keys. */
	UNCONTENDED("Uncontended: one thread, distinct keys, lock + release", Kind.EXCLUSIVE, locks(),
			UncontendedScenario::run),

	/**
	 * Threads of one JVM taking turns on one key around a non-atomic counter update, with
	 * the reactive rows' chains and every limit beside them.
	 */
	HOT_KEY("One hot key, one JVM", Kind.EXCLUSIVE,
			withLimits(withReactive(waiting()), Implementation.LIMIT_LOCAL_FAIR, Implementation.LIMIT_LOCAL_UNFAIR,
					Implementation.LIMIT_SINGLE_THREAD),
			(context) -> HotKeyScenario.run(context, 1, Kind.EXCLUSIVE)),

	/**
	 * The same critical section, half of the threads (or chains) in a second JVM, beside
	 * the one limit that two JVMs have: the critical section alone.
	 */
	HOT_KEY_TWO_JVMS("One hot key, two JVMs", Kind.EXCLUSIVE,
			withLimits(withReactive(waiting()), Implementation.LIMIT_SINGLE_THREAD),
			(context) -> HotKeyScenario.run(context, 2, Kind.EXCLUSIVE)),

	/** The hot key under a fair lock, with every limit beside it. */
	FAIR_HOT_KEY("One hot key, fair lock, one JVM", Kind.FAIR,
			withLimits(waiting(), Implementation.LIMIT_LOCAL_FAIR, Implementation.LIMIT_LOCAL_UNFAIR,
					Implementation.LIMIT_SINGLE_THREAD),
			(context) -> HotKeyScenario.run(context, 1, Kind.FAIR)),

	/**
	 * The hot key under a fair lock, half of the threads in a second JVM, beside the
	 * critical section alone.
	 */
	FAIR_HOT_KEY_TWO_JVMS("One hot key, fair lock, two JVMs", Kind.FAIR,
			withLimits(waiting(), Implementation.LIMIT_SINGLE_THREAD),
			(context) -> HotKeyScenario.run(context, 2, Kind.FAIR)),

	/**
	 * Threads of one JVM reading the counter under a read lock, or updating it under a
	 * write lock.
	 */
	READ_WRITE("Read/write lock, one hot key", Kind.READ_WRITE, waiting(), ReadWriteScenario::run),

	/**
	 * Threads, or the reactive rows' chains, waiting on a key that another JVM holds,
	 * then released.
	 */
	WAITERS("Waiters", Kind.EXCLUSIVE, withReactive(waiting()), WaitersScenario::run),

	/** Threads locking and releasing many distinct keys once each. */
	MANY_KEYS("Many keys", Kind.EXCLUSIVE, without(locks(), Implementation.SPRING_DATA_FLOOR), ManyKeysScenario::run),

	/**
	 * One JVM holds many locks under its watchdog's renewal for a while, then releases
	 * them. redis-lock's registry renews through the very same watchdog and is left out.
	 */
	MANY_HELD("Many held locks under watchdog renewal", Kind.WATCHDOG,
			without(locks(), Implementation.REDIS_LOCK_REGISTRY), ManyHeldScenario::run),

	/**
	 * Threads of two JVMs share a few permits of one name, each holding one for a short
	 * fixed time, with Redisson's semaphores beside redis-lock's permits.
	 */
	PERMITS("Permits: " + PermitsRun.LIMIT + " permits of one name, two JVMs", Kind.PERMIT, withPermitsOnly(waiting()),
			PermitsScenario::run);

	private final String title;

	private final Kind kind;

	private final Set<Implementation> suited;

	private final Runner runner;

	/**
	 * @param suited the implementations whose locks the scenario can exercise, if they
	 * have its kind
	 */
	Scenario(String title, Kind kind, Set<Implementation> suited, Runner runner) {
		this.title = title;
		this.kind = kind;
		this.suited = suited;
		this.runner = runner;
	}

	String title() {
		return this.title;
	}

	/** The kind of lock the scenario takes. */
	Kind kind() {
		return this.kind;
	}

	/** The name used on the command line, such as {@code hot-key-two-jvms}. */
	String id() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/** The implementations that take part, in declaration order. */
	List<Implementation> implementations() {
		return this.suited.stream().filter((implementation) -> implementation.supports(this.kind)).toList();
	}

	/**
	 * The locks that lack the scenario's kind of lock, in declaration order: none for an
	 * exclusive lock. Limits are never named: they are no locks; nor are the reactive
	 * rows and the implementations that have permits only, which run only where a
	 * scenario names them.
	 */
	List<Implementation> skipped() {
		return Arrays.stream(Implementation.values())
			.filter((implementation) -> !implementation.isLimit() && !implementation.isReactive()
					&& !implementation.isPermitsOnly() && !implementation.supports(this.kind))
			.toList();
	}

	/**
	 * Every implementation but the limits, the reactive rows and those that have permits
	 * only.
	 */
	private static Set<Implementation> locks() {
		Set<Implementation> locks = EnumSet.allOf(Implementation.class);
		locks.removeIf((implementation) -> implementation.isLimit() || implementation.isReactive()
				|| implementation.isPermitsOnly());
		return locks;
	}

	/** The given implementations and those that have permits only. */
	private static Set<Implementation> withPermitsOnly(Set<Implementation> implementations) {
		Set<Implementation> result = EnumSet.copyOf(implementations);
		Arrays.stream(Implementation.values()).filter(Implementation::isPermitsOnly).forEach(result::add);
		return result;
	}

	/** The given implementations and the reactive rows. */
	private static Set<Implementation> withReactive(Set<Implementation> implementations) {
		Set<Implementation> result = EnumSet.copyOf(implementations);
		result.addAll(List.of(Implementation.REDIS_LOCK_REACTIVE, Implementation.REDISSON_REACTIVE));
		return result;
	}

	/** The locks that can wait for a lock: not the floors. */
	private static Set<Implementation> waiting() {
		return without(locks(), Implementation.RAW_FLOOR, Implementation.SPRING_DATA_FLOOR);
	}

	private static Set<Implementation> without(Set<Implementation> implementations, Implementation... left) {
		Set<Implementation> result = EnumSet.copyOf(implementations);
		result.removeAll(List.of(left));
		return result;
	}

	private static Set<Implementation> withLimits(Set<Implementation> implementations, Implementation... limits) {
		Set<Implementation> result = EnumSet.copyOf(implementations);
		result.addAll(List.of(limits));
		return result;
	}

	/**
	 * How long a scenario process may run before it is taken for hung: five minutes, and
	 * in {@link #MANY_HELD} two more and the held time per count of locks.
	 */
	Duration timeout(BenchmarkSettings settings) {
		Duration timeout = Duration.ofMinutes(5);
		if (this == MANY_HELD) {
			Duration perCount = settings.heldDuration().plus(Duration.ofMinutes(2));
			timeout = timeout.plus(perCount.multipliedBy(settings.heldCounts().size()));
		}
		return timeout;
	}

	Figures run(ScenarioContext context) throws Exception {
		return this.runner.run(context);
	}

	static Scenario fromId(String id) {
		for (Scenario scenario : values()) {
			if (scenario.id().equals(id)) {
				return scenario;
			}
		}
		throw new IllegalArgumentException("Unknown scenario '" + id + "'");
	}

	@FunctionalInterface
	interface Runner {

		Figures run(ScenarioContext context) throws Exception;

	}

}
