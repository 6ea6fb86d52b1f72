package io.github.redislock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The rules every lock option must follow, in one place. Each rule returns {@code null}
 * for a valid value or a {@link Violation} saying what is wrong and what to do; the layer
 * that checked it turns the violation into its own exception and names the value the way
 * its users wrote it:
 * <ul>
 * <li>{@link LockOptions}, {@link LockRequest} and {@link LockTemplate} throw
 * {@link IllegalArgumentException} naming the argument, such as {@code waitTime};</li>
 * <li>the auto-configuration throws Spring Boot's
 * {@code InvalidConfigurationPropertyValueException} naming the property, such as
 * {@code redis-lock.wait-time};</li>
 * <li>{@link DistributedLock @DistributedLock} support throws
 * {@code LockConfigurationException} naming the method and attribute, such as
 * {@code waitTime = "-1s"}.</li>
 * </ul>
 * So one rule reads the same, problem and action, wherever it is broken.
 *
 * @author redis-lock
 */
public final class LockRules {

	private static final Duration ONE_MILLISECOND = Duration.ofMillis(1);

	private LockRules() {
	}

	/**
	 * Lock key: neither {@code null} nor blank, and not beginning with <code>'}'</code>.
	 * The key goes inside a Redis Cluster hash tag ({@code prefix{key}}); a leading
	 * <code>'}'</code> would close that tag at once, leaving it empty, so that the lock's
	 * keys would scatter over several slots.
	 * @param key the lock name
	 * @return the violation, or {@code null} if the key is valid
	 */
	public static @Nullable Violation key(@Nullable String key) {
		if (key == null || key.isBlank()) {
			return new Violation("must not be " + ((key == null) ? "null" : "blank"),
					"Give the name of the resource to lock, such as \"order:42\"");
		}
		if (key.charAt(0) == '}') {
			return new Violation(
					"must not begin with '}' but was \"" + key + "\": the key sits inside a Redis Cluster"
							+ " hash tag, which would be empty and scatter the lock's keys over several slots",
					"Put some text before the '}'");
		}
		return null;
	}

	/**
	 * Name metrics and traces report a lock under: neither {@code null} nor blank.
	 * @param name the name
	 * @return the violation, or {@code null} if the name is valid
	 */
	public static @Nullable Violation observationName(@Nullable String name) {
		if (name == null || name.isBlank()) {
			return new Violation("must not be " + ((name == null) ? "null" : "blank"),
					"Give the kind of lock, such as \"OrderService.pay\"");
		}
		return null;
	}

	/**
	 * Key prefix: neither {@code null} nor blank, and without <code>'{'</code> or
	 * <code>'}'</code>, which would break the hash tag that follows it.
	 * @param keyPrefix the prefix
	 * @return the violation, or {@code null} if the prefix is valid
	 */
	public static @Nullable Violation keyPrefix(@Nullable String keyPrefix) {
		if (keyPrefix == null || keyPrefix.isBlank()) {
			return new Violation("must not be " + ((keyPrefix == null) ? "null" : "blank"),
					"Give a prefix such as \"redis-lock:\", which the default is");
		}
		if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
			return new Violation("must not contain '{' or '}', which would break the hash tag of each lock's keys, but"
					+ " was '" + keyPrefix + "'", "Remove the braces, as in \"billing:lock:\"");
		}
		return null;
	}

	/**
	 * Wait time: zero (a single attempt) or positive.
	 * @param waitTime the wait time
	 * @return the violation, or {@code null} if the wait time is valid
	 */
	public static @Nullable Violation waitTime(@Nullable Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			return new Violation("must be zero or positive but was " + waitTime,
					"Use zero for a single attempt, or how long to wait");
		}
		return null;
	}

	/**
	 * Fixed lease: at least one millisecond, the unit Redis counts leases in; a shorter
	 * one would reach Redis as zero. Where the lease is optional, leaving it unset means
	 * watchdog renewal, and this rule does not apply.
	 * @param leaseTime the lease
	 * @return the violation, or {@code null} if the lease is valid
	 */
	public static @Nullable Violation leaseTime(@Nullable Duration leaseTime) {
		return atLeastOneMillisecond(leaseTime,
				"Use a lease the work surely fits in, or leave the lease unset for watchdog renewal");
	}

	/**
	 * Lease of a grant the watchdog renews: at least one millisecond, like any lease.
	 * @param watchdogLease the lease
	 * @return the violation, or {@code null} if the lease is valid
	 */
	public static @Nullable Violation watchdogLease(@Nullable Duration watchdogLease) {
		return atLeastOneMillisecond(watchdogLease,
				"Use some seconds: the lease is how long a crashed holder blocks others at most");
	}

	/**
	 * Watchdog renewal interval: at least one millisecond and shorter than the watchdog
	 * lease, or a held lock would expire between two renewals.
	 * @param renewInterval the renewal interval
	 * @param watchdogLease the lease it renews, checked by {@link #watchdogLease}
	 * @return the violation, or {@code null} if the interval is valid
	 */
	public static @Nullable Violation renewInterval(@Nullable Duration renewInterval, Duration watchdogLease) {
		String action = "Use a third of the watchdog lease, which leaves room for two failed renewals";
		Violation tooShort = atLeastOneMillisecond(renewInterval, action);
		if (tooShort != null || renewInterval == null) {
			return tooShort;
		}
		if (renewInterval.compareTo(watchdogLease) >= 0) {
			return new Violation("must be shorter than the watchdog lease (" + watchdogLease + ") but was "
					+ renewInterval + ", or a held lock would expire between renewals", action);
		}
		return null;
	}

	/**
	 * Number of replicas that must acknowledge a grant: zero (no waiting) or positive.
	 * @param minReplicas the number of replicas
	 * @return the violation, or {@code null} if the number is valid
	 */
	public static @Nullable Violation minReplicas(int minReplicas) {
		if (minReplicas < 0) {
			return new Violation("must be zero or positive but was " + minReplicas,
					"Use 0 to wait for no replica, or how many replicas must acknowledge a grant");
		}
		return null;
	}

	/**
	 * How long a grant waits for its replicas: at least one millisecond, the unit of
	 * Redis {@code WAIT}, whose zero would wait for ever.
	 * @param replicationTimeout the timeout
	 * @return the violation, or {@code null} if the timeout is valid
	 */
	public static @Nullable Violation replicationTimeout(@Nullable Duration replicationTimeout) {
		return atLeastOneMillisecond(replicationTimeout,
				"Use a short wait, such as the default of 1 second: other commands queue behind it");
	}

	/**
	 * The replication timeout against the client's command timeout: when grants wait for
	 * replicas, the wait must end before the command timeout does, or the client would
	 * fail the {@code WAIT} as a Redis error rather than report too few replicas.
	 * @param replicationTimeout the replication timeout
	 * @param minReplicas the number of replicas grants wait for; zero waits for none, and
	 * then any timeout is valid
	 * @param commandTimeout the command timeout of the Redis client
	 * @return the violation, or {@code null} if the timeout is valid
	 */
	public static @Nullable Violation replicationTimeout(Duration replicationTimeout, int minReplicas,
			Duration commandTimeout) {
		if (minReplicas > 0 && replicationTimeout.toMillis() >= commandTimeout.toMillis()) {
			return new Violation("must be shorter than the Redis command timeout (" + commandTimeout + ") but was "
					+ replicationTimeout + ", or the command timeout would end the wait for replicas as a failure",
					"Shorten redis-lock.replication-timeout or lengthen spring.data.redis.timeout");
		}
		return null;
	}

	/**
	 * Kind of lock: not {@code null}.
	 * @param mode the lock mode
	 * @return the violation, or {@code null} if the mode is valid
	 */
	public static @Nullable Violation mode(@Nullable LockMode mode) {
		if (mode == null) {
			return new Violation("must not be null", "Give LockMode.EXCLUSIVE, the default, READ, WRITE or PERMIT");
		}
		return null;
	}

	/**
	 * Number of permits of a name that may be held at once: at least 1.
	 * @param limit the limit
	 * @return the violation, or {@code null} if the limit is valid
	 */
	public static @Nullable Violation limit(long limit) {
		if (limit < 1) {
			return new Violation("must be at least 1, but is " + limit,
					"Give how many may hold a permit of the name at once, 1 or more");
		}
		return null;
	}

	/**
	 * Fair ordering against the kind of lock: only an exclusive lock can be fair. A
	 * read/write lock needs no fairness to keep writers from starving, since a waiting
	 * writer already keeps new readers out.
	 * @param fair whether the lock is fair
	 * @param mode the kind of lock
	 * @return the violation, or {@code null} if the combination is valid
	 */
	public static @Nullable Violation fairMode(boolean fair, LockMode mode) {
		if (fair && mode != LockMode.EXCLUSIVE) {
			return new Violation(
					"applies to exclusive locks only, but the mode is " + mode
							+ "; a read/write lock already keeps writers from starving behind readers",
					"Ask for an exclusive lock to be fair, or for a " + mode + " lock that is not fair");
		}
		return null;
	}

	private static @Nullable Violation atLeastOneMillisecond(@Nullable Duration duration, String action) {
		if (duration == null || duration.compareTo(ONE_MILLISECOND) < 0) {
			return new Violation("must be at least 1 ms (Redis counts it in milliseconds) but was " + duration, action);
		}
		return null;
	}

	/**
	 * Throw the {@link IllegalArgumentException} of the API layer for a violation.
	 * @param argument the argument as the caller knows it, such as {@code waitTime}
	 * @param violation the violation, or {@code null} for none
	 */
	static void check(String argument, @Nullable Violation violation) {
		if (violation != null) {
			throw new IllegalArgumentException(violation.message(argument));
		}
	}

	/**
	 * A broken rule.
	 *
	 * @param problem what is wrong, without naming the value, which each layer names its
	 * own way: {@code "must be zero or positive but was PT-1S"}
	 * @param action what to do about it, as a sentence
	 */
	public record Violation(String problem, String action) {

		/**
		 * Return the problem and action as a message about the named value, such as
		 * {@code "waitTime must be zero or positive but was PT-1S. Use zero for a single
		 * attempt, or how long to wait"}.
		 * @param subject the value as the reader knows it
		 * @return the message
		 */
		public String message(String subject) {
			return subject + " " + this.problem + ". " + this.action;
		}

	}

}
