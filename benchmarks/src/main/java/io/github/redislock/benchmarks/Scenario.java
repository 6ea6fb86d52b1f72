package io.github.redislock.benchmarks;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The scenarios, in the order they run, each in a fresh JVM per implementation.
 */
enum Scenario {

	/** One thread locking and releasing distinct keys. */
	UNCONTENDED("Uncontended: one thread, distinct keys, lock + release", EnumSet.allOf(Implementation.class),
			UncontendedScenario::run),

	/** Threads of one JVM taking turns on one key around a non-atomic counter update. */
	HOT_KEY("One hot key, one JVM", waiting(), (context) -> HotKeyScenario.run(context, 1)),

	/** The same critical section, half of the threads in a second JVM. */
	HOT_KEY_TWO_JVMS("One hot key, two JVMs", waiting(), (context) -> HotKeyScenario.run(context, 2)),

	/** Threads waiting on a key that another JVM holds, then released. */
	WAITERS("Waiters", waiting(), WaitersScenario::run),

	/** Threads locking and releasing many distinct keys once each. */
	MANY_KEYS("Many keys", EnumSet.complementOf(EnumSet.of(Implementation.SPRING_DATA_FLOOR)), ManyKeysScenario::run);

	private final String title;

	private final Set<Implementation> implementations;

	private final Runner runner;

	Scenario(String title, Set<Implementation> implementations, Runner runner) {
		this.title = title;
		this.implementations = implementations;
		this.runner = runner;
	}

	String title() {
		return this.title;
	}

	/** The name used on the command line, such as {@code hot-key-two-jvms}. */
	String id() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/** The implementations that take part, in declaration order. */
	List<Implementation> implementations() {
		return List.copyOf(this.implementations);
	}

	/** The implementations that can wait for a lock: not the floors. */
	private static Set<Implementation> waiting() {
		return EnumSet.complementOf(EnumSet.of(Implementation.RAW_FLOOR, Implementation.SPRING_DATA_FLOOR));
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
