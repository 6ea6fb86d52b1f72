package io.github.redislock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Settings of a {@link LockTemplate}: where its keys live in Redis and the defaults of
 * the requests it runs. Immutable; start from {@link #defaults()} and change what you
 * need:
 *
 * <pre class="code">
 * LockOptions.defaults().withKeyPrefix("billing:lock:").withWaitTime(Duration.ofSeconds(2))
 * </pre>
 *
 * @param keyPrefix prefix of every Redis key and channel of a lock; the lock name follows
 * it inside a hash tag, so that all keys of one lock map to one Redis Cluster slot. The
 * default is {@value #DEFAULT_KEY_PREFIX}.
 * @param waitTime how long a request waits for a lock unless it says otherwise; zero
 * makes a single attempt. The default is 10 seconds.
 * @param leaseTime fixed lease of a grant unless the request says otherwise, after which
 * it expires without renewal; {@code null} (the default) means the watchdog renews the
 * lock while it is held.
 * @param watchdogLease lease of a grant renewed by the watchdog: how long a crashed
 * holder blocks others at most. The default is 30 seconds.
 * @param renewInterval how often the watchdog renews a grant; must be shorter than the
 * watchdog lease. The watchdog lease minus the renew interval should be a second or more,
 * or the engine logs a warning when it starts; a third of it is how long the engine waits
 * for the answers to its own commands (renewals, releases), whatever the Redis command
 * timeout. The default is 10 seconds.
 * @param minReplicas how many replicas must acknowledge a grant before it counts, checked
 * with Redis {@code WAIT} right after the grant; a grant fewer replicas acknowledged
 * within the replication timeout is released and the acquisition fails with
 * {@link LockNotReplicatedException}. Guards against a primary that fails before its
 * replicas copied a grant, which the promoted replica would not know. The default is 0:
 * no waiting, as plain Redis replication.
 * @param replicationTimeout how long a grant waits for {@code minReplicas}
 * acknowledgements. {@code WAIT} holds the connection it runs on, so other commands of
 * this client queue behind it meanwhile. The default is 1 second.
 * @author redis-lock
 */
public record LockOptions(String keyPrefix, Duration waitTime, @Nullable Duration leaseTime, Duration watchdogLease,
		Duration renewInterval, int minReplicas, Duration replicationTimeout) {

	/** Default key prefix. */
	public static final String DEFAULT_KEY_PREFIX = "redis-lock:";

	/** Default wait time. */
	public static final Duration DEFAULT_WAIT_TIME = Duration.ofSeconds(10);

	/** Default lease of a grant renewed by the watchdog. */
	public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);

	/** Default renewal interval of the watchdog. */
	public static final Duration DEFAULT_RENEW_INTERVAL = Duration.ofSeconds(10);

	/** Default number of replicas that must acknowledge a grant: none. */
	public static final int DEFAULT_MIN_REPLICAS = 0;

	/** Default time a grant waits for its replicas' acknowledgements. */
	public static final Duration DEFAULT_REPLICATION_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Check the options against {@link LockRules}.
	 * @throws IllegalArgumentException naming the first option that breaks its rule, with
	 * what to do
	 */
	public LockOptions {
		LockRules.check("keyPrefix", LockRules.keyPrefix(keyPrefix));
		LockRules.check("waitTime", LockRules.waitTime(waitTime));
		if (leaseTime != null) {
			LockRules.check("leaseTime", LockRules.leaseTime(leaseTime));
		}
		LockRules.check("watchdogLease", LockRules.watchdogLease(watchdogLease));
		LockRules.check("renewInterval", LockRules.renewInterval(renewInterval, watchdogLease));
		LockRules.check("minReplicas", LockRules.minReplicas(minReplicas));
		LockRules.check("replicationTimeout", LockRules.replicationTimeout(replicationTimeout));
	}

	/**
	 * Create options that need no replica acknowledgement.
	 * @param keyPrefix prefix of every Redis key and channel of a lock
	 * @param waitTime default wait time
	 * @param leaseTime default fixed lease, or {@code null} for watchdog renewal
	 * @param watchdogLease lease of a renewed grant
	 * @param renewInterval how often the watchdog renews
	 */
	public LockOptions(String keyPrefix, Duration waitTime, @Nullable Duration leaseTime, Duration watchdogLease,
			Duration renewInterval) {
		this(keyPrefix, waitTime, leaseTime, watchdogLease, renewInterval, DEFAULT_MIN_REPLICAS,
				DEFAULT_REPLICATION_TIMEOUT);
	}

	/**
	 * Return the default options.
	 * @return the defaults
	 */
	public static LockOptions defaults() {
		return new LockOptions(DEFAULT_KEY_PREFIX, DEFAULT_WAIT_TIME, null, DEFAULT_WATCHDOG_LEASE,
				DEFAULT_RENEW_INTERVAL);
	}

	/**
	 * Return a copy with the given key prefix.
	 * @param keyPrefix the prefix
	 * @return new options
	 */
	public LockOptions withKeyPrefix(String keyPrefix) {
		return new LockOptions(keyPrefix, this.waitTime, this.leaseTime, this.watchdogLease, this.renewInterval,
				this.minReplicas, this.replicationTimeout);
	}

	/**
	 * Return a copy with the given default wait time.
	 * @param waitTime the wait time
	 * @return new options
	 */
	public LockOptions withWaitTime(Duration waitTime) {
		return new LockOptions(this.keyPrefix, waitTime, this.leaseTime, this.watchdogLease, this.renewInterval,
				this.minReplicas, this.replicationTimeout);
	}

	/**
	 * Return a copy with the given default lease, or {@code null} for watchdog renewal.
	 * @param leaseTime the lease or {@code null}
	 * @return new options
	 */
	public LockOptions withLeaseTime(@Nullable Duration leaseTime) {
		return new LockOptions(this.keyPrefix, this.waitTime, leaseTime, this.watchdogLease, this.renewInterval,
				this.minReplicas, this.replicationTimeout);
	}

	/**
	 * Return a copy with the given watchdog lease and renewal interval.
	 * @param watchdogLease the lease of a renewed grant
	 * @param renewInterval how often it is renewed
	 * @return new options
	 */
	public LockOptions withWatchdog(Duration watchdogLease, Duration renewInterval) {
		return new LockOptions(this.keyPrefix, this.waitTime, this.leaseTime, watchdogLease, renewInterval,
				this.minReplicas, this.replicationTimeout);
	}

	/**
	 * Return a copy that makes every grant wait for acknowledgement by the given number
	 * of replicas.
	 * @param minReplicas how many replicas must acknowledge a grant; 0 for none
	 * @param replicationTimeout how long a grant waits for them
	 * @return new options
	 */
	public LockOptions withMinReplicas(int minReplicas, Duration replicationTimeout) {
		return new LockOptions(this.keyPrefix, this.waitTime, this.leaseTime, this.watchdogLease, this.renewInterval,
				minReplicas, replicationTimeout);
	}

}
