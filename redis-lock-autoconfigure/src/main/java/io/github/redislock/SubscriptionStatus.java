package io.github.redislock;

/**
 * The state of the connection on which an engine receives release messages, which wake
 * its waiting threads as soon as a lock is released.
 *
 * @author redis-lock
 * @see LockDiagnostics#subscriptionStatus()
 */
public enum SubscriptionStatus {

	/**
	 * No thread has waited yet, so no subscription was needed: the connection is opened
	 * by the first wait and kept open from then on.
	 */
	NONE,

	/**
	 * The subscription connection is connected, and every lock that threads wait for is
	 * subscribed.
	 */
	CONNECTED,

	/**
	 * The subscription connection is broken and being reconnected, or a lock that threads
	 * wait for is not subscribed, such as after the engine dropped a connection whose
	 * state it could no longer tell and before it subscribed the lock again on the next
	 * one. Meanwhile release messages are missed, so those threads wake only when the
	 * holder's lease runs out or their wait time ends; they try again at once when the
	 * subscription is back.
	 */
	DISCONNECTED

}
