package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.ObjIntConsumer;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import io.github.redislock.SubscriptionStatus;

/**
 * The threads of this JVM that wait for locks, woken by release messages that a
 * {@link ReleaseSubscriber} receives: the registry of the waited-for channels, and where
 * release messages arrive.
 *
 * <h2>Design notes</h2>
 *
 * A waiter sleeps until a release message arrives on its lock's channel or until the
 * holder's lease runs out, whichever is first: a crashed holder publishes nothing. It
 * sends no Redis command while it sleeps.
 *
 * <p>
 * <b>Subscribing before the last try.</b> A release published between a failed attempt
 * and the subscription would be missed, so a waiter first joins its channel (subscribing
 * when it is the first), then tries the lock again, and only then sleeps. How channels
 * are subscribed, kept and recovered is {@link SubscriptionLifetime}'s job.
 *
 * <p>
 * <b>Who is woken.</b> The waiters of one channel queue in arrival order in its
 * {@link ChannelWaiters}, which wakes one per release and keeps this JVM's waiters in
 * arrival order. A message is decoded by the lock kind that sent it
 * ({@link LockKind#wakeUpOf}) into the {@link WakeUp} that says whom it wakes. For a kind
 * that yields, this JVM's own releases wake nobody here: the releasing thread wakes a
 * local waiter itself ({@link #releasedHere}), and may first leave the lock to other JVMs
 * for a while ({@link YieldWindows}).
 *
 * <p>
 * <b>Lost messages.</b> Pub/sub delivers at most once. When the connection drops, Lettuce
 * reconnects and subscribes again; each confirmation reaches {@link #onSubscribed} (or
 * {@link #onAllMissed} for a whole connection), which wakes the channel's waiters: they
 * try again at once, since a release may have been published while disconnected.
 *
 * @author redis-lock
 */
final class ReleaseSubscriptions implements ReleaseSubscriber.Listener, AutoCloseable {

	/**
	 * How release messages of this JVM's owners begin: their owner tokens' instance id.
	 */
	private final byte[] ownReleasePrefix;

	private final ConcurrentHashMap<String, ChannelWaiters> channels = new ConcurrentHashMap<>();

	private final SubscriptionLifetime lifetime;

	private final YieldWindows yields = new YieldWindows();

	/**
	 * Create the waiters' registry.
	 * @param subscriberFactory opens the subscription connection at the first wait, given
	 * this registry as its listener
	 * @param lingerMillis how long a channel stays subscribed after its last waiter left
	 * @param instanceId the instance id that begins this JVM's owner tokens
	 */
	ReleaseSubscriptions(Function<ReleaseSubscriber.Listener, ReleaseSubscriber> subscriberFactory, long lingerMillis,
			String instanceId) {
		this.ownReleasePrefix = (instanceId + ":").getBytes(StandardCharsets.UTF_8);
		this.lifetime = new SubscriptionLifetime(this.channels, subscriberFactory, this, lingerMillis);
	}

	/**
	 * Queue the current thread as a waiter of the channel, once Redis confirmed the
	 * channel's subscription, subscribing first if needed.
	 * @throws RuntimeException from the Redis client when subscribing failed (with the
	 * interrupt status set when interrupted); nothing is left queued then
	 */
	Waiter join(String channel, String owner, boolean orderedHere, boolean takesHandOver, boolean reentrant) {
		Waiter waiter = new Waiter(Thread.currentThread(), owner, orderedHere, takesHandOver, reentrant);
		ReleaseSubscriber current = this.lifetime.subscriber();
		ChannelWaiters waiters = this.channels.compute(channel, (name, existing) -> {
			ChannelWaiters joined = (existing != null) ? existing : new ChannelWaiters();
			// Counted at once, so that the sweep keeps the channel.
			joined.startJoining();
			return joined;
		});
		try {
			this.lifetime.awaitSubscribed(current, channel, waiters.subscription());
		}
		catch (RuntimeException ex) {
			waiters.abandonJoining();
			throw ex;
		}
		waiters.join(waiter);
		return waiter;
	}

	/**
	 * Queue a pending acquisition's waiter in the channel without blocking the calling
	 * thread, once Redis confirmed the channel's subscription: subscribing as
	 * {@link #join} does, and when the subscription connection is not open, opening it on
	 * the given executor, since that waits for Redis.
	 * @return completes with the waiter once queued; exceptionally when subscribing
	 * failed, and then nothing is left queued
	 */
	CompletionStage<Waiter> joinAsync(String channel, Waiter waiter, Executor background) {
		ChannelWaiters waiters = this.channels.compute(channel, (name, existing) -> {
			ChannelWaiters joined = (existing != null) ? existing : new ChannelWaiters();
			// Counted at once, so that the sweep keeps the channel.
			joined.startJoining();
			return joined;
		});
		CompletionStage<Void> subscribed;
		try {
			subscribed = this.lifetime.subscribeAsync(channel, waiters.subscription(), background);
		}
		catch (RuntimeException ex) {
			subscribed = CompletableFuture.failedFuture(ex);
		}
		return subscribed.handle((ignored, ex) -> {
			if (ex != null) {
				waiters.abandonJoining();
				Throwable cause = ScriptCommands.unwrap(ex);
				throw (cause instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException("Could not subscribe to " + channel, cause);
			}
			waiters.join(waiter);
			return waiter;
		});
	}

	/**
	 * Remove a waiter, passing on a signal it did not use, or its turn
	 * ({@link ChannelWaiters#remove}).
	 * @param granted whether the waiter leaves holding the lock
	 */
	void leave(String channel, Waiter waiter, boolean granted) {
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters != null) {
			waiters.remove(waiter, granted);
		}
	}

	/**
	 * Whether a waiter of this JVM that takes its turn here is queued on the channel: a
	 * new arrival then queues behind it ({@link ChannelWaiters}).
	 */
	boolean hasQueued(String channel) {
		ChannelWaiters waiters = this.channels.get(channel);
		return waiters != null && waiters.hasQueued();
	}

	/** Whether the first waiter of this JVM's line takes a passed grant. */
	boolean firstTakesHandOver(String channel) {
		ChannelWaiters waiters = this.channels.get(channel);
		return waiters != null && waiters.firstTakesHandOver();
	}

	/** Pass a grant to the first waiter of the channel: {@link ChannelWaiters#passTo}. */
	boolean passTo(String channel, Function<Waiter, @Nullable LockHold> successor) {
		ChannelWaiters waiters = this.channels.get(channel);
		return waiters != null && waiters.passTo(successor);
	}

	/** Whether it is the waiter's turn to ask Redis without being woken. */
	boolean isFirst(String channel, Waiter waiter) {
		ChannelWaiters waiters = this.channels.get(channel);
		return waiters == null || waiters.isFirst(waiter);
	}

	/**
	 * How long this JVM still yields the lock to other JVMs; 0 or less when it does not.
	 */
	long yieldingNanos(String channel) {
		return this.yields.yieldingNanos(channel);
	}

	/**
	 * Called by a thread of this JVM that released a lock through Redis, or found it lost
	 * as it released it. When a thread of another JVM waits for it (Redis refused it the
	 * lock since the last release), the waiters there get the lock first: this JVM's
	 * threads yield until another JVM releases it, or for the given time at most. One
	 * local waiter is woken either way: it tries at once, or when the yield window ends
	 * if no other JVM took the lock meanwhile.
	 * @param othersWait whether a thread of another JVM waits for the lock
	 */
	void releasedHere(String channel, boolean othersWait, long yieldNanos) {
		if (othersWait) {
			this.yields.open(channel, yieldNanos);
		}
		wakeOne(channel);
	}

	/**
	 * Wake one local waiter of the channel, which asks Redis: for a lock this JVM found
	 * lost, which may be free.
	 */
	void wakeOne(String channel) {
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters != null) {
			waiters.signalOne();
		}
	}

	/**
	 * Drop ended yield windows, unsubscribe channels that have had no waiter for the
	 * linger time, and subscribe again channels that have waiters but lost their
	 * subscription. Sends commands and waits for none.
	 */
	void sweep() {
		long now = System.nanoTime();
		this.yields.expire(now);
		this.lifetime.sweep(now);
	}

	@Override
	public void onMessage(String channel, byte[] body) {
		WakeUp wakeUp = LockKind.wakeUpOf(body, this.ownReleasePrefix);
		if (wakeUp.endsYield()) {
			// Another JVM had its turn: this one yields no longer.
			this.yields.end(channel);
		}
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters != null) {
			wakeUp.wake(waiters);
		}
	}

	@Override
	public void onSubscribed(String channel) {
		this.lifetime.onSubscribed(channel);
	}

	@Override
	public void onUnsubscribed(String channel) {
		this.lifetime.onUnsubscribed(channel);
	}

	@Override
	public void onAllMissed() {
		this.channels.values().forEach(ChannelWaiters::signalAll);
	}

	@Override
	public void onAllLost() {
		this.lifetime.onAllLost();
	}

	/** Number of channels subscribed for waiters, for tests and diagnostics. */
	int subscribedChannels() {
		return this.channels.size();
	}

	/** Number of threads waiting now, over all channels, for diagnostics. */
	int waiterCount() {
		int count = 0;
		for (ChannelWaiters waiters : this.channels.values()) {
			count += waiters.size();
		}
		return count;
	}

	/**
	 * Number of threads asleep now, over all channels, waiting for a wake-up: for
	 * diagnostics, and for tests that must know a waiter made its last try.
	 */
	int sleepingWaiterCount() {
		int count = 0;
		for (ChannelWaiters waiters : this.channels.values()) {
			count += waiters.sleepingCount();
		}
		return count;
	}

	/** Report each channel that has waiters now, with their number, for diagnostics. */
	void forEachWaited(ObjIntConsumer<String> action) {
		this.channels.forEach((channel, waiters) -> {
			int size = waiters.size();
			if (size > 0) {
				action.accept(channel, size);
			}
		});
	}

	/**
	 * Commands on the subscription connection itself, or {@code null}: see
	 * {@link ReleaseSubscriber#commands()}.
	 */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> subscriptionCommands() {
		return this.lifetime.subscriptionCommands();
	}

	/**
	 * The state of the subscriptions now: disconnected while the connection is, or while
	 * a channel with waiters is not subscribed. Walks the channels.
	 */
	SubscriptionStatus status() {
		return this.lifetime.status();
	}

	/** Wake every waiter of every channel, as the engine starts to shut down. */
	void wakeAll() {
		this.channels.values().forEach(ChannelWaiters::signalAll);
	}

	/** Close the subscription connection, and wake every waiter, which gives up. */
	@Override
	public void close() {
		this.lifetime.close();
		this.channels.values().forEach(ChannelWaiters::signalAll);
	}

}
