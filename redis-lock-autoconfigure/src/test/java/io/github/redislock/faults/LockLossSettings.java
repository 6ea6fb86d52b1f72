package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;

/**
 * Settings shared by the lock-loss nemesis test ({@link LockLossNemesisTests}), its nodes
 * and its checker.
 */
final class LockLossSettings {

	/**
	 * The hot lock names, each locked with every kind, {@code "x"} half the time so that
	 * it stays contended: {@code "x (write)"} and {@code "x (read)"} are what a hold key
	 * built by appending the kind to the name of {@code "x"} would alias, and
	 * {@code "x:rw"} what the read/write key of {@code "x"} would.
	 */
	static final List<String> NAMES = List.of("x", "x (write)", "x (read)", "x:rw");

	/**
	 * Watchdog lease: short, so that a Redis asleep or a connection cut can cost a lease.
	 */
	static final Duration WATCHDOG_LEASE = Duration.ofSeconds(2);

	static final Duration RENEW_INTERVAL = Duration.ofMillis(500);

	/** Command timeout of the nodes' Redis client: a Redis asleep for 1 s times out. */
	static final Duration COMMAND_TIMEOUT = Duration.ofMillis(900);

	/** Shortest and longest fixed lease. */
	static final int MIN_FIXED_LEASE_MILLIS = 2000;

	static final int MAX_FIXED_LEASE_MILLIS = 5000;

	/**
	 * Wait time of most acquisitions, and of all once faults stopped: longer than any
	 * lease a lost release may leave behind plus the queue of every thread, so that a
	 * timeout means starvation.
	 */
	static final Duration QUIET_WAIT = Duration.ofSeconds(10);

	/**
	 * How long after the last fault ended acquisitions must all be granted and holds
	 * kept.
	 */
	static final Duration SETTLE = Duration.ofSeconds(2);

	/**
	 * How many may hold a permit of a name at once, for the permits kind ({@code "P"}).
	 */
	static final int PERMIT_LIMIT = 2;

	/** Control list: one exit token per node, once the test checked Redis. */
	static final String EXIT = "lockloss:exit";

	private LockLossSettings() {
	}

}
