package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ObjIntConsumer;

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
 * {@link LocalLock}, which wakes one per release. A message is decoded by the lock kind
 * that sent it ({@link LockKind#wakeUpOf}) into the {@link WakeUp} that says whom it
 * wakes. For a kind that yields, this JVM's own releases wake nobody here: the releasing
 * thread wakes a local waiter itself, and may first leave the lock to other JVMs for a
 * while ({@link LocalLock#yieldFor}).
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

	private final LocalLocks locks;

	private final SubscriptionLifetime lifetime;

	/**
	 * Create the waiters' registry.
	 * @param subscriberFactory opens the subscription connection at the first wait, given
	 * this registry as its listener
	 * @param lingerMillis how long a channel stays subscribed after its last waiter left
	 * @param instanceId the instance id that begins this JVM's owner tokens
	 * @param locks the locks of this JVM, whose waiters are woken
	 */
	ReleaseSubscriptions(Function<ReleaseSubscriber.Listener, ReleaseSubscriber> subscriberFactory, long lingerMillis,
			String instanceId, LocalLocks locks) {
		this.ownReleasePrefix = (instanceId + ":").getBytes(StandardCharsets.UTF_8);
		this.locks = locks;
		this.lifetime = new SubscriptionLifetime(locks.byChannel(), subscriberFactory, this, lingerMillis);
	}

	/**
	 * Queue the current thread as a waiter of the channel, once Redis confirmed the
	 * channel's subscription, subscribing first if needed.
	 * @throws RuntimeException from the Redis client when subscribing failed (with the
	 * interrupt status set when interrupted); nothing is left queued then
	 */
	LocalLock join(String channel, Waiter waiter) {
		ReleaseSubscriber current = this.lifetime.subscriber();
		// Counted at once, so that the sweep keeps the channel.
		LocalLock lock = this.locks.startJoining(channel);
		try {
			this.lifetime.awaitSubscribed(current, channel, lock.subscription());
		}
		catch (RuntimeException ex) {
			lock.abandonJoining();
			throw ex;
		}
		lock.join(waiter);
		return lock;
	}

	/**
	 * Queue a pending acquisition's waiter in the channel without blocking the calling
	 * thread, once Redis confirmed the channel's subscription: subscribing as
	 * {@link #join} does, and when the subscription connection is not open, opening it on
	 * the given executor, since that waits for Redis.
	 * @return completes with the waiter's lock once queued; exceptionally when
	 * subscribing failed, and then nothing is left queued
	 */
	CompletionStage<LocalLock> joinAsync(String channel, Waiter waiter, Executor background) {
		// Counted at once, so that the sweep keeps the channel.
		LocalLock waiters = this.locks.startJoining(channel);
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
			return waiters;
		});
	}

	/**
	 * Drop the locks nothing needs any more, unsubscribe channels that have had no waiter
	 * for the linger time, and subscribe again channels that have waiters but lost their
	 * subscription. Sends commands and waits for none.
	 */
	void sweep() {
		this.lifetime.sweep(System.nanoTime());
	}

	@Override
	public void onMessage(String channel, byte[] body) {
		WakeUp wakeUp = LockKind.wakeUpOf(body, this.ownReleasePrefix);
		LocalLock lock = this.locks.find(channel);
		if (lock == null) {
			return;
		}
		if (wakeUp.endsYield()) {
			// Another JVM had its turn: this one yields no longer.
			lock.endYield();
		}
		wakeUp.wake(lock);
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
		this.locks.byChannel().values().forEach(LocalLock::signalAll);
	}

	@Override
	public void onAllLost() {
		this.lifetime.onAllLost();
	}

	/** Number of channels subscribed for waiters, for tests and diagnostics. */
	int subscribedChannels() {
		int count = 0;
		for (LocalLock lock : this.locks.byChannel().values()) {
			if (!lock.subscription().isNeverAsked()) {
				count++;
			}
		}
		return count;
	}

	/** Number of threads waiting now, over all channels, for diagnostics. */
	int waiterCount() {
		int count = 0;
		for (LocalLock lock : this.locks.byChannel().values()) {
			count += lock.waiterCount();
		}
		return count;
	}

	/**
	 * Number of threads asleep now, over all channels, waiting for a wake-up: for
	 * diagnostics, and for tests that must know a waiter made its last try.
	 */
	int sleepingWaiterCount() {
		int count = 0;
		for (LocalLock lock : this.locks.byChannel().values()) {
			count += lock.sleepingCount();
		}
		return count;
	}

	/** Report each channel that has waiters now, with their number, for diagnostics. */
	void forEachWaited(ObjIntConsumer<String> action) {
		this.locks.byChannel().forEach((channel, lock) -> {
			int size = lock.waiterCount();
			if (size > 0) {
				action.accept(channel, size);
			}
		});
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
		this.locks.byChannel().values().forEach(LocalLock::signalAll);
	}

	/** Close the subscription connection, and wake every waiter, which gives up. */
	@Override
	public void close() {
		this.lifetime.close();
		this.locks.byChannel().values().forEach(LocalLock::signalAll);
	}

	/**
	 * What a release message asks of this JVM's waiters of its channel, as the lock kind
	 * that sent it decodes it ({@link LockKind#wakeUpOf}).
	 *
	 * @param description what it wakes, for logs and test failures
	 * @param waking wakes the waiters of the message's channel that it names
	 * @param endsYield whether the message ends this JVM's yielding of the lock to other
	 * JVMs
	 */
	record WakeUp(String description, Consumer<LocalLock> waking, boolean endsYield) {

		/** Wakes nobody: the message is not for this JVM's waiters. */
		static final WakeUp NOBODY = new WakeUp("nobody", (waiters) -> {
		}, false);

		/**
		 * Wakes one waiter; another JVM released the lock, so this JVM yields it no
		 * longer.
		 */
		static final WakeUp NEXT = new WakeUp("next", LocalLock::signalOne, true);

		/** Wakes every waiter, since several of them may get in together. */
		static final WakeUp ALL = new WakeUp("all", LocalLock::signalAll, false);

		/** Wakes the one waiter that asks under the given owner token. */
		static WakeUp owner(String owner) {
			return new WakeUp("owner " + owner, (waiters) -> waiters.signalOwner(owner), false);
		}

		/** Wake the waiters of the message's channel that it names. */
		void wake(LocalLock waiters) {
			this.waking.accept(waiters);
		}

		@Override
		public String toString() {
			return this.description;
		}

	}

}
