package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.engine.LockScripts.Attempt;
import io.github.redislock.engine.ReleaseSubscriptions.Waiter;

/**
 * Acquires and releases locks in Redis for one {@link io.github.redislock.LockTemplate}:
 * reentrancy within this JVM, the acquire / wait / retry loop, release and the watchdog.
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
 * @author redis-lock
 */
public final class RedisLockEngine implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(RedisLockEngine.class);

	/** How long a channel stays subscribed after its last waiter left. */
	private static final long SUBSCRIPTION_LINGER_MILLIS = 1000;

	private final LockOptions options;

	private final LockKeys keys;

	private final LockScripts scripts;

	private final OwnerTokens tokens = new OwnerTokens();

	private final ReleaseSubscriptions subscriptions;

	private final LockWatchdog watchdog;

	/** The hold of each lock this JVM holds now, for reentrancy and diagnostics. */
	private final ConcurrentHashMap<String, LockHold> holds = new ConcurrentHashMap<>();

	/**
	 * Create an engine on the given connection factory.
	 * @param connectionFactory a Lettuce connection factory, already started
	 * @param options the key prefix, lease and renewal settings
	 */
	public RedisLockEngine(RedisConnectionFactory connectionFactory, LockOptions options) {
		if (connectionFactory.getClass().getName().contains("Jedis")) {
			throw new IllegalArgumentException("redis-lock needs a Lettuce connection factory, not "
					+ connectionFactory.getClass().getName() + ": Jedis subscriptions block a thread each");
		}
		this.options = options;
		this.keys = new LockKeys(options.keyPrefix());
		this.scripts = new LockScripts(connectionFactory, this.keys);
		this.subscriptions = new ReleaseSubscriptions(connectionFactory, this.keys.controlChannel(),
				SUBSCRIPTION_LINGER_MILLIS);
		this.watchdog = new LockWatchdog(this.scripts, options.renewInterval().toMillis(), this.subscriptions::sweep,
				SUBSCRIPTION_LINGER_MILLIS);
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
	 * @return a handle, or {@code null} when the lock stayed held by another owner
	 * @throws LockAccessException when Redis failed
	 * @throws LockInterruptedException when interrupted while waiting
	 */
	public @Nullable LockHandle acquire(String key, Duration waitTime, @Nullable Duration leaseTime) {
		LockHold current = this.holds.get(key);
		if (current != null && current.ownerThread() == Thread.currentThread() && current.tryReenter()) {
			return new RedisLockHandle(this, current);
		}
		long leaseMillis = (leaseTime != null) ? leaseTime.toMillis() : this.options.watchdogLease().toMillis();
		String owner = this.tokens.next();
		long deadline = System.nanoTime() + waitTime.toNanos();
		long sentAt = System.nanoTime();
		Attempt attempt = attempt(key, owner, leaseMillis);
		if (!attempt.granted()) {
			if (waitTime.isZero()) {
				return null;
			}
			sentAt = System.nanoTime();
			attempt = await(key, owner, leaseMillis, deadline);
			if (attempt == null) {
				return null;
			}
		}
		LockHold hold = new LockHold(key, owner, attempt.fencingToken(), leaseMillis, leaseTime == null, sentAt);
		this.holds.put(key, hold);
		if (hold.isRenewed()) {
			this.watchdog.watch(hold);
		}
		return new RedisLockHandle(this, hold);
	}

	/**
	 * Wait for the lock as a subscriber of its release channel.
	 * @return the granting attempt, or {@code null} when the wait time ran out
	 */
	private @Nullable Attempt await(String key, String owner, long leaseMillis, long deadline) {
		String channel = this.keys.releaseChannel(key);
		Waiter waiter;
		try {
			waiter = this.subscriptions.join(channel);
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(key, "wait for", ex);
		}
		try {
			while (true) {
				Attempt attempt = attempt(key, owner, leaseMillis);
				if (attempt.granted()) {
					return attempt;
				}
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return null;
				}
				long holderLeft = (attempt.holderLeaseMillis() < 0) ? Long.MAX_VALUE
						: Math.max(1, attempt.holderLeaseMillis()) * 1_000_000;
				waiter.await(Math.min(remaining, holderLeft));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockInterruptedException(key, ex);
		}
		finally {
			this.subscriptions.leave(channel, waiter);
		}
	}

	private Attempt attempt(String key, String owner, long leaseMillis) {
		try {
			return this.scripts.acquire(key, owner, leaseMillis);
		}
		catch (RuntimeException ex) {
			// Redis may have run the script before failing to answer: release what it may
			// have
			// granted, in the background and owner-checked, so nothing stays locked for a
			// lease.
			this.watchdog.execute(() -> releaseQuietly(key, owner));
			throw new LockAccessException(key, "acquire", ex);
		}
	}

	private void releaseQuietly(String key, String owner) {
		try {
			this.scripts.release(key, owner);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not release lock '{}' after a failed acquisition; it expires with its lease", key, ex);
		}
	}

	void release(LockHold hold) {
		if (!hold.exit()) {
			if (hold.isLost()) {
				throw new LockLostException(hold.key(), hold.fencingToken());
			}
			return;
		}
		this.holds.remove(hold.key(), hold);
		this.watchdog.unwatch(hold);
		boolean released;
		try {
			released = this.scripts.release(hold.key(), hold.owner());
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(hold.key(), "release", ex);
		}
		if (!released || hold.isLost()) {
			hold.markLost();
			throw new LockLostException(hold.key(), hold.fencingToken());
		}
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
	 * Return how many holds the watchdog renews now.
	 * @return the number of renewed holds
	 */
	public int renewedCount() {
		return this.watchdog.watchedCount();
	}

	/**
	 * Stop renewing and close the subscription connection. Locks still held expire at the
	 * end of their lease; waiters give up at their next wake-up.
	 */
	@Override
	public void close() {
		this.watchdog.close();
		this.subscriptions.close();
	}

}
