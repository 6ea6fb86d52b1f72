package io.github.redislock;

/**
 * What a {@link LockEngine} holds and waits for now, read by the health indicator, the
 * metrics and the Actuator endpoint, and by tests that must know a waiter is asleep. Each
 * reading walks the engine's holds or subscribed channels: meant for gauges and
 * diagnostics, not for every lock call. Readings are a moment's view and may be stale as
 * soon as they are returned.
 *
 * @author redis-lock
 * @see LockEngine#diagnostics()
 */
public interface LockDiagnostics {

	/**
	 * Return how many locks this JVM holds through the engine now.
	 * @return the number of held locks
	 */
	int heldCount();

	/**
	 * Return how many locks of the given mode this JVM holds through the engine now: with
	 * {@link LockMode#PERMIT}, how many permits. The default counts the entries of a
	 * {@link #snapshot()}.
	 * @param mode the mode to count
	 * @return the number of held locks of that mode
	 */
	default int heldCount(LockMode mode) {
		return (int) snapshot().held().stream().filter((lock) -> lock.mode() == mode).count();
	}

	/**
	 * Return how many leases the watchdog renews now.
	 * @return the number of renewed holds
	 */
	int renewedCount();

	/**
	 * Return how many threads wait for locks through the engine now. A thread counts from
	 * the moment it joins its lock's waiters, before its first attempt after subscribing,
	 * so it may not be asleep yet: see {@link #sleepingWaiterCount()}.
	 * @return the number of waiting threads
	 */
	int waiterCount();

	/**
	 * Return how many threads wait for locks of the given mode through the engine now:
	 * with {@link LockMode#PERMIT}, how many wait for a permit. Counted as
	 * {@link #waiterCount()}; the default sums the entries of a {@link #snapshot()}.
	 * @param mode the mode to count
	 * @return the number of threads waiting for that mode
	 */
	default int waiterCount(LockMode mode) {
		return snapshot().awaited()
			.stream()
			.filter((lock) -> lock.mode() == mode)
			.mapToInt(LockSnapshot.AwaitedLock::waiters)
			.sum();
	}

	/**
	 * Return how many waiting threads are asleep now, parked until a release message, a
	 * hand-over, the holder's lease end or their wait time wakes them. A thread counts
	 * from just before it parks until it wakes; one that is trying Redis or about to park
	 * does not.
	 * @return the number of sleeping waiters
	 */
	int sleepingWaiterCount();

	/**
	 * Return how many lock channels are subscribed for waiters now; a channel is
	 * unsubscribed about a second after its last waiter left.
	 * @return the number of subscribed lock channels
	 */
	int subscribedChannelCount();

	/**
	 * Return how many releases the engine is trying again in the background now: the
	 * owner-checked releases it sends for a grant nobody can use (an acquisition whose
	 * answer was lost or came too late, a release that failed) whose last attempt failed
	 * too. Each is tried again until Redis answers or its grant's lease would have ended.
	 * Above zero, Redis is unreachable or was until just now. The default, for an engine
	 * that never releases in the background, is 0.
	 * @return the number of releases being retried
	 */
	default int retriedReleaseCount() {
		return 0;
	}

	/**
	 * Return the state of the connection that receives release messages. While it is
	 * {@linkplain SubscriptionStatus#DISCONNECTED disconnected}, waiting threads wake
	 * only when leases run out.
	 * @return the subscription status
	 */
	SubscriptionStatus subscriptionStatus();

	/**
	 * Return the locks the engine holds and the locks its threads wait for now, by lock
	 * name and {@link LockMode mode}.
	 * @return a snapshot of the held and awaited locks
	 */
	LockSnapshot snapshot();

}
