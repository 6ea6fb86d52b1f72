package io.github.redislock.benchmarks;

import java.util.List;
import java.util.Set;

/**
 * The figures of one count of locks in the many-held scenario, per held lock and per
 * renew interval: the window lasts a number of renew intervals, each lock is renewed
 * about once per interval, so these are the cost of one renewal of one lock.
 *
 * @param run the figures of the implementation's scenario process
 * @param count how many locks were held
 * @param directCommands commands the implementation sends itself, see
 * {@link Implementation#directCommands()}
 */
record HeldWindow(Figures run, int count, Set<String> directCommands) {

	private static final String PREFIX = "held.";

	private static final String WINDOW = ".windowSeconds";

	/** The windows a scenario process measured, by increasing count. */
	static List<HeldWindow> of(Implementation implementation, Figures run) {
		return run.names()
			.stream()
			.filter((name) -> name.startsWith(PREFIX) && name.endsWith(WINDOW))
			.map((name) -> Integer.parseInt(name.substring(PREFIX.length(), name.length() - WINDOW.length())))
			.sorted()
			.map((count) -> new HeldWindow(run, count, implementation.directCommands()))
			.toList();
	}

	private String name(String figure) {
		return PREFIX + this.count + "." + figure;
	}

	/** How many renew intervals the window lasted. */
	double intervals() {
		return this.run.getDouble(name("windowSeconds")) / this.run.getDouble("renewIntervalSeconds");
	}

	double acquireSeconds() {
		return this.run.getDouble(name("acquireSeconds"));
	}

	CommandCounts commands() {
		return CommandCounts.readFrom(this.run, name(""));
	}

	/**
	 * Commands the client sent per renew interval, all locks together: calls that the
	 * probe saw clients send, or that only a client can send (a script call), counted by
	 * {@code INFO commandstats} over the window.
	 */
	double roundTripsPerInterval() {
		return commands().roundTrips(CommandCounts.readShares(this.run), this.directCommands) / intervals();
	}

	/**
	 * Write system calls of the client's JVM per renew interval, all locks together: the
	 * network round trips its renewals cost, however many commands each write carried;
	 * {@code NaN} where the system does not count them.
	 */
	double clientWritesPerInterval() {
		return this.run.has(name("clientWrites")) ? this.run.getDouble(name("clientWrites")) / intervals() : Double.NaN;
	}

	double perLockPerInterval(double value) {
		return value / this.count / intervals();
	}

	double commandsPerLockPerInterval() {
		return perLockPerInterval(commands().total());
	}

	double clientCpuMicrosPerLockPerInterval() {
		return perLockPerInterval(this.run.getDouble(name("clientCpuMicros")));
	}

	double redisCpuMicrosPerLockPerInterval() {
		return perLockPerInterval(this.run.getDouble(name("redisCpuMicros")));
	}

	long lost() {
		return this.run.getLong(name("lost"));
	}

	long lossNoticed() {
		return this.run.getLong(name("lossNoticed"));
	}

	double heapBytesPerLock() {
		return this.run.getDouble(name("heapBytesPerLock"));
	}

	double heapNoiseBytesPerLock() {
		return this.run.getDouble(name("heapNoiseBytesPerLock"));
	}

	String busiestThreads() {
		return this.run.get(name("busiestThreads"));
	}

	/**
	 * Commands per held lock per interval, by command: {@code evalsha 1 · get 1 · …}.
	 */
	String commandsPerLock() {
		return commands().perOperation(Math.round(this.count * intervals()));
	}

}
