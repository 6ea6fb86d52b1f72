package io.github.redislock.engine;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;

/**
 * Acquires and releases locks in Redis for one {@link io.github.redislock.LockTemplate}:
 * reentrancy within this JVM, the acquire / wait / retry loop, release and the watchdog.
 * A facade: it builds the engine's parts and delegates to them, the acquire path to
 * {@link LockAcquirer}, the release path to {@link LockReleaser}, waiting to
 * {@link ReleaseSubscriptions} and renewal to {@link LockWatchdog}; what differs between
 * kinds of lock is in the {@link LockKind} subclasses.
 *
 * <p>
 * Uncontended, a lock and its release are two round trips, one script each; a reentrant
 * acquisition is none. A waiter costs one subscription per lock name (shared by all
 * waiters of that name in this JVM) and no command while it sleeps.
 *
 * <p>
 * Needs a Lettuce connection factory: the release subscription relies on Lettuce
 * subscribing without blocking the calling thread.
 *
 * <p>
 * An optional {@link LockObserver} is told of acquisitions, holds, renewals and losses.
 * Without one, the engine makes no call and reads no clock for it.
 *
 * @author redis-lock
 */
public final class RedisLockEngine implements AutoCloseable {

	/** How long a channel stays subscribed after its last waiter left. */
	private static final long SUBSCRIPTION_LINGER_MILLIS = 1000;

	private final LockOptions options;

	private final LockKeys keys;

	private final LockScripts scripts;

	private final ReleaseSubscriptions subscriptions;

	private final LockWatchdog watchdog;

	private final Housekeeping housekeeping;

	/** The hold of each lock this JVM holds now, for reentrancy and diagnostics. */
	private final LocalHolds holds = new LocalHolds();

	private final LockAcquirer acquirer;

	private final LockReleaser releaser;

	/**
	 * Create an engine on the given connection factory.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, lease and renewal settings
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options) {
		this(connectionFactory, options, null);
	}

	/**
	 * Create an engine on the given connection factory that reports to an observer.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, lease and renewal settings
	 * @param observer told of acquisitions, holds, renewals and losses, or {@code null}
	 * for none
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options,
			@Nullable LockObserver observer) {
		if (connectionFactory.getClass().getName().contains("Jedis")) {
			throw new IllegalArgumentException("redis-lock needs a Lettuce connection factory, not "
					+ connectionFactory.getClass().getName() + ": Jedis subscriptions block a thread each");
		}
		checkReplicationTimeout(connectionFactory, options);
		this.options = options;
		LockObserver guarded = (observer != null) ? new GuardedLockObserver(observer) : null;
		this.keys = new LockKeys(options.keyPrefix());
		// Read every kind's scripts now rather than in the first lock call's wait time.
		LockKind.all();
		OwnerTokens tokens = new OwnerTokens();
		ReleaseMessaging messaging = new ReleaseMessaging(connectionFactory);
		this.scripts = new LockScripts(connectionFactory, this.keys, messaging);
		String controlChannel = this.keys.controlChannel();
		this.subscriptions = new ReleaseSubscriptions((listener) -> messaging.subscriber(controlChannel, listener),
				SUBSCRIPTION_LINGER_MILLIS, tokens.instanceId());
		this.housekeeping = new Housekeeping(this.subscriptions::sweep, SUBSCRIPTION_LINGER_MILLIS);
		this.housekeeping.execute(this.scripts::prepare);
		this.watchdog = new LockWatchdog(this.scripts, options.watchdogLease(), options.renewInterval(),
				(guarded != null) ? new ObservedLeases(guarded) : null);
		Grants grants = new Grants(this.holds, this.watchdog, guarded);
		BackgroundReleases backgroundReleases = new BackgroundReleases(this.scripts, this.subscriptions,
				this.housekeeping);
		this.releaser = new LockReleaser(this.scripts, this.holds, this.watchdog, this.subscriptions,
				new LocalHandOver(this.holds, this.subscriptions), backgroundReleases, guarded);
		AcquireAttempts attempts = new AcquireAttempts(options, this.scripts, grants, backgroundReleases);
		EagerAcquisitions eager = new EagerAcquisitions(options, tokens, this.scripts,
				new AsyncAcquirer(this.scripts.commands()), this.subscriptions, grants, backgroundReleases,
				this.releaser, this.housekeeping);
		LockWaiting waiting = new LockWaiting(this.scripts, this.holds, this.subscriptions, attempts, eager,
				this.releaser);
		this.acquirer = new LockAcquirer(options, tokens, this.scripts, this.holds, this.subscriptions, attempts,
				waiting, guarded);
	}

	/**
	 * Reject a replication timeout the client's command timeout would cut short: the
	 * {@code WAIT} would fail as a Redis error rather than report too few replicas.
	 */
	private static void checkReplicationTimeout(RedisConnectionFactory connectionFactory, LockOptions options) {
		if (options.minReplicas() > 0 && connectionFactory instanceof LettuceConnectionFactory lettuce
				&& options.replicationTimeout().toMillis() >= lettuce.getTimeout()) {
			throw new IllegalArgumentException("replicationTimeout (redis-lock.replication-timeout, "
					+ options.replicationTimeout() + ") must be shorter than the Redis command timeout "
					+ "(spring.data.redis.timeout, " + Duration.ofMillis(lettuce.getTimeout())
					+ "), which would otherwise end the wait for replicas as a failure");
		}
	}

	/**
	 * Return the options this engine runs with.
	 * @return the options
	 */
	public LockOptions options() {
		return this.options;
	}

	/**
	 * Acquire a lock, waiting up to the wait time.
	 * @param key the lock name, already checked
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param reentrant whether the lock belongs to the calling thread, which may re-enter
	 * it, or to the acquisition alone
	 * @return a handle, or {@code null} when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while waiting
	 */
	public @Nullable LockHandle acquire(String key, Duration waitTime, @Nullable Duration leaseTime,
			boolean reentrant) {
		return acquire(key, null, waitTime, leaseTime, reentrant);
	}

	/**
	 * Acquire a lock, waiting up to the wait time, under a name for the observer.
	 * @param key the lock name, already checked
	 * @param name a low-cardinality name for the {@link LockObserver}, such as the
	 * annotated method, or {@code null} to let it derive one from the key
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param reentrant whether the lock belongs to the calling thread, which may re-enter
	 * it, or to the acquisition alone
	 * @return a handle, or {@code null} when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while waiting
	 */
	public @Nullable LockHandle acquire(String key, @Nullable String name, Duration waitTime,
			@Nullable Duration leaseTime, boolean reentrant) {
		return acquire(key, name, LockKind.EXCLUSIVE, waitTime, leaseTime, reentrant);
	}

	/**
	 * Acquire a lock of the given kind, waiting up to the wait time, under a name for the
	 * observer.
	 * @param key the lock name, already checked
	 * @param name a low-cardinality name for the {@link LockObserver}, or {@code null} to
	 * let it derive one from the key
	 * @param kind exclusive, fair, or a side of a read/write lock
	 * @param waitTime how long to wait; zero for a single attempt
	 * @param leaseTime a fixed lease, or {@code null} for watchdog renewal
	 * @param reentrant whether the lock belongs to the calling thread, which may re-enter
	 * it, or to the acquisition alone
	 * @return a handle, or {@code null} when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while waiting
	 * @throws IllegalStateException when the thread holds the read lock and asks for the
	 * write lock of the same name
	 */
	public @Nullable LockHandle acquire(String key, @Nullable String name, LockKind kind, Duration waitTime,
			@Nullable Duration leaseTime, boolean reentrant) {
		LockHold hold = this.acquirer.acquire(key, name, kind, waitTime, leaseTime, reentrant);
		return (hold != null) ? new RedisLockHandle(this, hold) : null;
	}

	/**
	 * Release one handle of a hold, and the lock with its last handle.
	 * @throws LockLostException when the lock was found lost
	 * @throws LockAccessException when Redis failed
	 */
	void release(LockHold hold) {
		this.releaser.release(hold);
	}

	/**
	 * Return how many locks this JVM holds through this engine now.
	 * @return the number of held locks
	 */
	public int heldCount() {
		return this.holds.size();
	}

	/**
	 * Return how many lock channels are subscribed for waiters now; channels are
	 * unsubscribed about a second after their last waiter left.
	 * @return the number of subscribed lock channels
	 */
	public int subscribedChannelCount() {
		return this.subscriptions.subscribedChannels();
	}

	/**
	 * Return how many leases the watchdog renews now.
	 * @return the number of renewed holds
	 */
	public int renewedCount() {
		return this.watchdog.watchedCount();
	}

	/**
	 * Return how many threads wait for locks through this engine now. Walks the
	 * subscribed channels: meant for gauges and diagnostics, not for every lock call.
	 * @return the number of waiting threads
	 */
	public int waiterCount() {
		return this.subscriptions.waiterCount();
	}

	/**
	 * Return the locks this engine holds and the locks its threads wait for now, by lock
	 * name. Costs a walk of the held locks and of the subscribed channels, and nothing on
	 * the lock path.
	 * @return a snapshot of the held and awaited locks
	 */
	public LockSnapshot snapshot() {
		return LockSnapshot.of(this.holds.all(), this.subscriptions, this.keys);
	}

	/**
	 * Return the state of the connection that receives release messages. While it is
	 * {@linkplain SubscriptionStatus#DISCONNECTED disconnected}, waiting threads wake
	 * only when leases run out.
	 * @return the subscription status
	 */
	public SubscriptionStatus subscriptionStatus() {
		return this.subscriptions.status();
	}

	/**
	 * Stop renewing and close the subscription connection. Locks still held expire at the
	 * end of their lease; waiters give up at their next wake-up.
	 */
	@Override
	public void close() {
		this.watchdog.close();
		this.housekeeping.close();
		this.subscriptions.close();
		this.scripts.close();
	}

}
