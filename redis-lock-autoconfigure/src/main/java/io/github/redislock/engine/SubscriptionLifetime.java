package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.SubscriptionStatus;

/**
 * The subscriptions of the release channels that waiters of this JVM listen on: the
 * subscription connection, opened at the first wait, each channel's subscription, and
 * their recovery when Redis or the connection lose them.
 *
 * <h2>Design notes</h2>
 *
 * <b>Lifetime.</b> Channels are subscribed on the first waiter and unsubscribed by
 * {@link #sweep}, once they have had no waiter for a while, so that a hot lock does not
 * subscribe and unsubscribe at every wait. The registry's map of {@link LocalLock} is the
 * one record of the channels that should be subscribed; each entry's
 * {@link ChannelSubscription} says whether Redis confirmed it on the current connection.
 * A joining thread is counted in its entry at once, in the map's atomic compute for the
 * channel, then sends the subscribe (or finds one in flight, or confirmed) and waits for
 * its answer with no lock held ({@link #awaitSubscribed}): neither the map's entry nor
 * any monitor is held while waiting for Redis. A subscribe that fails leaves the joining
 * thread's count undone and the entry idle, to be swept (with an unsubscribe, in case
 * Redis subscribed it after all); a confirmation that arrives for a channel without an
 * entry (its waiter gave up first) makes an idle one, so nothing stays subscribed
 * unrecorded. The sweep removes an idle entry and sends its unsubscribe in the same
 * compute, so the subscribe of a waiter that arrives later, which must create a new
 * entry, follows it on the connection: an unsubscribe never overtakes a later subscribe.
 *
 * <p>
 * <b>Recovery.</b> When a subscription ends without being asked to (a cluster slot moved;
 * the connection broke, and Lettuce subscribes again as it reconnects, which may fail;
 * the subscriber dropped its connection, as it does when an unsubscribe goes unanswered,
 * and opens another), {@link #onUnsubscribed} or {@link #onAllLost} mark the channels
 * unsubscribed until a confirmation arrives, and every sweep subscribes again each
 * channel that has waiters and is neither subscribed nor being subscribed. Every
 * confirmation ({@link #onSubscribed}) wakes the channel's waiters, who try at once,
 * since a release may have been published while they were not subscribed. Until then
 * {@link #status()} says {@link SubscriptionStatus#DISCONNECTED}: those waiters wake only
 * when the holder's lease runs out.
 *
 * @author redis-lock
 */
final class SubscriptionLifetime {

	private static final Log logger = LogFactory.getLog(SubscriptionLifetime.class);

	private final ConcurrentHashMap<String, LocalLock> channels;

	private final Function<ReleaseSubscriber.Listener, ReleaseSubscriber> subscriberFactory;

	private final ReleaseSubscriber.Listener listener;

	private final long lingerNanos;

	/** Opened at the first subscription; {@code null} until then. */
	private volatile @Nullable ReleaseSubscriber subscriber;

	/**
	 * Guards opening and closing the subscriber: a lock rather than a monitor, since on a
	 * cluster opening it may first ask every node for its version, and on JDK 21 to 23 a
	 * virtual thread that waits while it holds a monitor pins its carrier thread.
	 */
	private final ReentrantLock subscriberLock = new ReentrantLock();

	private volatile boolean closed;

	/**
	 * Keep the given channels subscribed.
	 * @param channels the registry's channels, by name
	 * @param subscriberFactory opens the subscription connection at the first wait
	 * @param listener told of what arrives on the connection
	 * @param lingerMillis how long a channel stays subscribed after its last waiter left
	 */
	SubscriptionLifetime(ConcurrentHashMap<String, LocalLock> channels,
			Function<ReleaseSubscriber.Listener, ReleaseSubscriber> subscriberFactory,
			ReleaseSubscriber.Listener listener, long lingerMillis) {
		this.channels = channels;
		this.subscriberFactory = subscriberFactory;
		this.listener = listener;
		this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMillis);
	}

	/**
	 * The subscription connection, opened now if it is not yet.
	 * @throws IllegalStateException when the engine was closed
	 */
	ReleaseSubscriber subscriber() {
		ReleaseSubscriber current = this.subscriber;
		if (current != null) {
			return current;
		}
		this.subscriberLock.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The lock engine was closed");
			}
			if (this.subscriber == null) {
				this.subscriber = this.subscriberFactory.apply(this.listener);
			}
			return this.subscriber;
		}
		finally {
			this.subscriberLock.unlock();
		}
	}

	/**
	 * Wait until Redis confirmed the channel's subscription, subscribing if nobody does;
	 * called with no lock held.
	 * @throws RuntimeException from the Redis client when subscribing failed (with the
	 * interrupt status set when interrupted)
	 */
	void awaitSubscribed(ReleaseSubscriber current, String channel, ChannelSubscription subscription) {
		if (subscription.isConfirmed()) {
			return;
		}
		current.connect();
		try {
			// Bounded by the command timeout: see ReleaseSubscriber#subscribe.
			subscription.subscribe(current, channel).get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisCommandInterruptedException(ex);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new RedisException("Could not subscribe to " + channel, ex.getCause());
		}
	}

	/**
	 * Subscribe the channel without blocking the calling thread, for a pending
	 * acquisition: on the open connection when it is connected, otherwise on the given
	 * executor, which opens the connection (waiting for Redis) as
	 * {@link #awaitSubscribed} does.
	 * @return completes when Redis confirmed the subscription; exceptionally when
	 * subscribing failed
	 */
	CompletionStage<Void> subscribeAsync(String channel, ChannelSubscription subscription, Executor background) {
		if (subscription.isConfirmed()) {
			return CompletableFuture.completedFuture(null);
		}
		ReleaseSubscriber current = this.subscriber;
		if (current != null && current.status() == SubscriptionStatus.CONNECTED) {
			return subscription.subscribe(current, channel);
		}
		return CompletableFuture.runAsync(() -> awaitSubscribed(subscriber(), channel, subscription), background);
	}

	/**
	 * Unsubscribe channels that have had no waiter for the linger time, and subscribe
	 * again channels that have waiters but lost their subscription. Sends commands and
	 * waits for none.
	 */
	void sweep(long now) {
		ReleaseSubscriber current = this.subscriber;
		if (current != null) {
			current.repair();
		}
		for (String channel : this.channels.keySet()) {
			this.channels.computeIfPresent(channel, (name, lock) -> {
				if (current != null && lock.isIdleSince(now - this.lingerNanos)
						&& !lock.subscription().isNeverAsked()) {
					// In this compute, so that a later waiter's subscribe comes after it.
					lock.subscription().unsubscribe(current, name);
				}
				return lock.isUnused() ? null : lock;
			});
		}
		if (current == null) {
			return;
		}
		this.channels.forEach((channel, lock) -> {
			if (lock.waiterCount() > 0 && lock.subscription().isIdle()) {
				logger.debug(LogMessage.format("Subscribing again to %s, which has waiters", channel));
				// Its confirmation wakes the waiters: see onSubscribed. A failure leaves
				// it to the next sweep.
				lock.subscription().subscribe(current, channel);
			}
		});
	}

	/** Redis confirmed a subscription: its waiters try again at once. */
	void onSubscribed(String channel) {
		// Confirmed for nobody, such as a subscribe answered after its waiter gave up:
		// recorded as idle, so that the sweep unsubscribes it.
		LocalLock lock = this.channels.computeIfAbsent(channel, (name) -> new LocalLock());
		lock.subscription().confirmed();
		lock.signalAll();
	}

	/** Redis ended a subscription. */
	void onUnsubscribed(String channel) {
		// A channel unsubscribed on purpose has no entry any more, or a new one whose
		// subscribe comes after: this one was not asked for.
		LocalLock waiters = this.channels.get(channel);
		if (waiters != null) {
			waiters.subscription().lost();
		}
	}

	/** Every subscription of the connection is gone, for now or for good. */
	void onAllLost() {
		this.channels.values().forEach((waiters) -> waiters.subscription().reset());
	}

	/**
	 * The state of the subscriptions now: disconnected while the connection is, or while
	 * a channel with waiters is not subscribed. Walks the channels.
	 */
	SubscriptionStatus status() {
		ReleaseSubscriber current = this.subscriber;
		if (current == null) {
			return SubscriptionStatus.NONE;
		}
		for (LocalLock lock : this.channels.values()) {
			if (lock.waiterCount() > 0 && !lock.subscription().isConfirmed()) {
				return SubscriptionStatus.DISCONNECTED;
			}
		}
		return current.status();
	}

	/** Close the subscription connection; no subscriber opens after this. */
	void close() {
		ReleaseSubscriber current;
		this.subscriberLock.lock();
		try {
			this.closed = true;
			current = this.subscriber;
		}
		finally {
			this.subscriberLock.unlock();
		}
		if (current != null) {
			current.close();
		}
	}

}
