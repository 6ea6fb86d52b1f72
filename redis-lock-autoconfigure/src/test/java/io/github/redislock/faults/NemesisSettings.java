package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;

/**
 * Settings shared by the nemesis test, its nodes and its checker: lease and timeouts, the
 * hot keys, and the keys of the control Redis through which the test steers the nodes.
 */
final class NemesisSettings {

	/** Watchdog lease of every renewed lock. */
	static final Duration LEASE = Duration.ofSeconds(4);

	static final Duration RENEW_INTERVAL = Duration.ofSeconds(1);

	/**
	 * Command timeout of the nodes' Redis client: fits in the lease minus the renewal
	 * interval, so one unanswered renewal cannot cost a lease.
	 */
	static final Duration COMMAND_TIMEOUT = Duration.ofMillis(1500);

	/** Lease of the locks taken with a fixed lease, far longer than their holds. */
	static final Duration FIXED_LEASE = Duration.ofSeconds(3);

	/**
	 * How long an acquisition waits while faults run: at most less than a lease, so that
	 * an attempt refused by its own grant (which lasts a lease) times out and shows.
	 */
	static final Duration MAX_FAULTY_WAIT = Duration.ofMillis(3000);

	/** How long an acquisition waits once faults stopped: the bound it must meet. */
	static final Duration QUIET_WAIT = Duration.ofSeconds(8);

	/**
	 * How long after the last fault the system may take to recover: leases of grants
	 * nobody knows of run out, renewals and subscriptions are back.
	 */
	static final Duration SETTLE = LEASE.plus(COMMAND_TIMEOUT).plusSeconds(1);

	/**
	 * How long after an orphaned grant was first seen it must still be there to count:
	 * longer than a local grant takes to be recorded, shorter than a lease.
	 */
	static final Duration ORPHAN_PERSISTENCE = Duration.ofSeconds(1);

	/** Lock names of the hot keys, contended by every node, and their kinds. */
	static final List<HotKey> HOT_KEYS = List.of(new HotKey("hot-x0", "X"), new HotKey("hot-x1", "X"),
			new HotKey("hot-lease", "L"), new HotKey("hot-fair", "F"), new HotKey("hot-rw", "RW"));

	static final String KEY_PREFIX = "redis-lock:";

	/** Control key: the phase, "faulty" then "quiet". */
	static final String PHASE = "nemesis:phase";

	/** Control key: set once the nodes must finish. */
	static final String STOP = "nemesis:stop";

	/** Control list: one start token per node. */
	static final String START = "nemesis:start";

	/** Control key: changed by the nemesis to make every storm thread send at once. */
	static final String STORM = "nemesis:storm";

	private NemesisSettings() {
	}

	/**
	 * A hot lock name and its kind: {@code X} exclusive, {@code L} exclusive with a fixed
	 * lease, {@code F} fair, {@code RW} read/write.
	 */
	record HotKey(String name, String kind) {
	}

}
