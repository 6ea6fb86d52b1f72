package io.github.redislock.engine;

/**
 * The state of the connection on which an engine receives release messages, which wake
 * its waiting threads as soon as a lock is released.
 *
 * @author redis-lock
 * @see RedisLockEngine#subscriptionStatus()
 */
public enum SubscriptionStatus {

	/**
	 * No thread has waited yet, so no subscription was needed: the connection is opened
	 * by the first wait and kept open from then on.
	 */
	NONE,

	/** The subscription connection is connected. */
	CONNECTED,

	/**
	 * The subscription connection is broken, and the Redis client tries to reconnect it.
	 * Meanwhile release messages are missed, so waiting threads wake only when the
	 * holder's lease runs out or their wait time ends; they try again at once when it is
	 * back.
	 */
	DISCONNECTED

}
