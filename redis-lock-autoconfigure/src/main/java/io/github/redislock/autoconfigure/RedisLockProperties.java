package io.github.redislock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for redis-lock. The defaults are those of
 * {@link io.github.redislock.LockOptions#defaults()}.
 *
 * @author redis-lock
 */
@ConfigurationProperties("redis-lock")
public class RedisLockProperties {

	/**
	 * Whether to enable redis-lock: the LockTemplate and @DistributedLock support. When
	 * disabled, @DistributedLock methods run without a lock.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of the Redis keys and channels of every lock. Applications that share a
	 * Redis and must not share locks use different prefixes.
	 */
	private String keyPrefix = "redis-lock:";

	/**
	 * How long to wait for a lock when the request or annotation does not say. Zero makes
	 * a single attempt.
	 */
	private Duration waitTime = Duration.ofSeconds(10);

	/**
	 * Fixed lease of a lock when the request or annotation does not say, after which the
	 * lock expires even if still in use. When not set, the watchdog renews locks while
	 * they are held.
	 */
	private @Nullable Duration leaseTime;

	/**
	 * Number of replicas that must acknowledge a grant (Redis WAIT) before it counts. A
	 * grant fewer replicas acknowledged within the replication timeout is released and
	 * the acquisition fails, so that a primary failing right after a grant cannot lead
	 * its promoted replica to grant the lock again. Zero waits for no replica.
	 */
	private int minReplicas = 0;

	/**
	 * How long a grant waits for min-replicas acknowledgements. Other commands of this
	 * application's Redis connection queue behind the wait meanwhile.
	 */
	private Duration replicationTimeout = Duration.ofSeconds(1);

	private final Watchdog watchdog = new Watchdog();

	private final Observations observations = new Observations();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		this.waitTime = waitTime;
	}

	public @Nullable Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(@Nullable Duration leaseTime) {
		this.leaseTime = leaseTime;
	}

	public int getMinReplicas() {
		return this.minReplicas;
	}

	public void setMinReplicas(int minReplicas) {
		this.minReplicas = minReplicas;
	}

	public Duration getReplicationTimeout() {
		return this.replicationTimeout;
	}

	public void setReplicationTimeout(Duration replicationTimeout) {
		this.replicationTimeout = replicationTimeout;
	}

	public Watchdog getWatchdog() {
		return this.watchdog;
	}

	public Observations getObservations() {
		return this.observations;
	}

	/**
	 * Watchdog properties: renewal of locks held without a fixed lease.
	 */
	public static class Watchdog {

		/**
		 * Lease of a lock renewed by the watchdog, which is how long the locks of a
		 * crashed holder block others at most. Minus the renew interval, it should leave
		 * a second or more, or a warning is logged at start-up; a third of that is how
		 * long the engine waits for the answer to a renewal, a release or the shutdown's
		 * releases before it counts the command as unanswered (6.7 s by default),
		 * whatever the Redis command timeout.
		 */
		private Duration lease = Duration.ofSeconds(30);

		/**
		 * How often the watchdog renews the locks it watches. Must be shorter than the
		 * lease; a third of it leaves room for two failed renewals.
		 */
		private Duration renewInterval = Duration.ofSeconds(10);

		public Duration getLease() {
			return this.lease;
		}

		public void setLease(Duration lease) {
			this.lease = lease;
		}

		public Duration getRenewInterval() {
			return this.renewInterval;
		}

		public void setRenewInterval(Duration renewInterval) {
			this.renewInterval = renewInterval;
		}

	}

	/**
	 * Observability properties: Micrometer observations and meters of locks, applied when
	 * Micrometer is on the classpath.
	 */
	public static class Observations {

		/**
		 * Whether to record lock acquisitions and holds as observations
		 * ('redis.lock.acquire' and 'redis.lock.held' timers and spans) when an
		 * ObservationRegistry bean is available.
		 */
		private boolean enabled = true;

		/**
		 * Whether to add the lock key, which may contain ids, to observations as the
		 * high-cardinality 'lock.key' value, which traces show and metrics leave out.
		 */
		private boolean includeKey;

		/**
		 * Regular expression matching the variable parts of lock keys, such as ids, which
		 * are replaced by '*' to name a lock in tags when its request has no name of its
		 * own. @DistributedLock methods are named 'BeanClass.method'. The default matches
		 * every key segment, between ':', '/', '.', '#', '@', '|', ',', ';', '=' or
		 * whitespace, that contains a digit.
		 */
		private String idPattern = "[^:/.#@|,;=\\s]*\\d[^:/.#@|,;=\\s]*";

		private final Metrics metrics = new Metrics();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isIncludeKey() {
			return this.includeKey;
		}

		public void setIncludeKey(boolean includeKey) {
			this.includeKey = includeKey;
		}

		public String getIdPattern() {
			return this.idPattern;
		}

		public void setIdPattern(String idPattern) {
			this.idPattern = idPattern;
		}

		public Metrics getMetrics() {
			return this.metrics;
		}

		/**
		 * Meter properties.
		 */
		public static class Metrics {

			/**
			 * Whether to register gauges of held locks and waiting threads
			 * ('redis.lock.holds', 'redis.lock.waiters') and counters of renewals and
			 * losses ('redis.lock.renewals', 'redis.lock.losses') when a MeterRegistry
			 * bean is available.
			 */
			private boolean enabled = true;

			public boolean isEnabled() {
				return this.enabled;
			}

			public void setEnabled(boolean enabled) {
				this.enabled = enabled;
			}

		}

	}

}
