package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockMode;
import io.github.redislock.SubscriptionStatus;

/**
 * The threads of this JVM that wait for locks, woken by release messages that a
 * {@link ReleaseSubscriber} receives: the subscriptions of the waited-for channels, and
 * their recovery.
 *
 * <h2>Design notes</h2>
 *
 * A waiter sleeps until a release message arrives on its lock's channel or the holder's
 * lease runs out (a crashed holder publishes nothing), and sends no command meanwhile. It
 * joins its channel (subscribing when it is the first) before its last try, since a
 * release published between a failed try and the subscription would be missed.
 *
 * <p>
 * <b>Who is woken</b> is decided by the kind that sent the message, as a {@link WakeUp}
 * ({@link LockKind#wakeUpOf}); a channel's waiters queue in arrival order in its
 * {@link LocalLock}. For a kind that yields, a release of this JVM wakes nobody here: the
 * releasing thread wakes a local waiter itself ({@link LocalLock#yieldFor}).
 *
 * <p>
 * <b>Lifetime.</b> The map of {@link LocalLock} by channel is the one record of what
 * should be subscribed; each entry's {@link ChannelSubscription} says whether Redis
 * confirmed it on the current connection (how a thread joins is told at
 * {@link LocalLocks#startJoining}). A failed subscribe leaves the entry idle, to be swept
 * with an unsubscribe (Redis may have subscribed it after all); a confirmation for a
 * channel without an entry makes an idle one. A channel stays subscribed for the linger
 * time after its last waiter, so a hot lock does not subscribe at every wait. The sweep
 * removes an idle entry and sends its unsubscribe in one compute, so a later waiter's
 * subscribe, which makes a new entry, follows it on the connection: an unsubscribe never
 * overtakes a later subscribe.
 *
 * <p>
 * <b>Recovery.</b> Pub/sub delivers at most once. When a subscription ends unasked (a
 * slot moved, the connection broke or was dropped), {@link #onUnsubscribed} or
 * {@link #onAllLost} mark channels unsubscribed and every sweep subscribes again each
 * idle channel that has waiters. Every confirmation ({@link #onSubscribed},
 * {@link #onAllMissed}) wakes the channel's waiters to try at once, since a release may
 * have been published meanwhile; until then {@link #status()} says
 * {@link SubscriptionStatus#DISCONNECTED} and they wake only when the lease ends.
 *
 * @author redis-lock
 */
final class ReleaseSubscriptions implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ReleaseSubscriptions.class);

	/** How release messages of this JVM's owners begin: their instance id. */
	private final byte[] ownReleasePrefix;

	private final LocalLocks locks;

	private final ConcurrentHashMap<String, LocalLock> channels;

	private final long lingerNanos;

	/** Made at the first wait (on a cluster, after asking the nodes' versions). */
	private final SharedConnection<ReleaseSubscriber<?>> subscriber;

	/** Create the registry; a channel lingers lingerMillis after its last waiter. */
	ReleaseSubscriptions(Function<ReleaseSubscriptions, ReleaseSubscriber<?>> subscriberFactory, long lingerMillis,
			String instanceId, LocalLocks locks) {
		this.ownReleasePrefix = (instanceId + ":").getBytes(StandardCharsets.UTF_8);
		this.locks = locks;
		this.channels = locks.byChannel();
		this.subscriber = new SharedConnection<>(() -> subscriberFactory.apply(this), (opened) -> true,
				ReleaseSubscriber::close);
		this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMillis);
	}

	/**
	 * Queue the current thread as a waiter of the channel once Redis confirmed its
	 * subscription, subscribing first if needed.
	 * @throws RuntimeException from the Redis client when subscribing failed (with the
	 * interrupt status set when interrupted); nothing is left queued then
	 */
	LocalLock join(String channel, Waiter waiter) {
		ReleaseSubscriber<?> current = this.subscriber.get();
		LocalLock lock = this.locks.startJoining(channel);
		try {
			lock.subscription().await(current, channel);
		}
		catch (RuntimeException ex) {
			lock.abandonJoining();
			throw ex;
		}
		lock.join(waiter);
		return lock;
	}

	/**
	 * Queue a pending acquisition's waiter as {@link #join} does, opening the connection
	 * on the given executor if needed, so the caller never blocks.
	 * @return completes with the waiter's lock once queued; exceptionally when
	 * subscribing failed, and then nothing is left queued
	 */
	CompletionStage<LocalLock> joinAsync(String channel, Waiter waiter, Executor background) {
		LocalLock lock = this.locks.startJoining(channel);
		ChannelSubscription subscription = lock.subscription();
		ReleaseSubscriber<?> current = this.subscriber.now();
		CompletionStage<Void> subscribed;
		try {
			if (subscription.isConfirmed()) {
				subscribed = CompletableFuture.completedFuture(null);
			}
			else if (current != null && current.status() == SubscriptionStatus.CONNECTED) {
				subscribed = subscription.subscribe(current, channel);
			}
			else {
				subscribed = CompletableFuture.runAsync(() -> subscription.await(this.subscriber.get(), channel),
						background);
			}
		}
		catch (RuntimeException ex) {
			subscribed = CompletableFuture.failedFuture(ex);
		}
		return subscribed.handle((ignored, ex) -> {
			if (ex != null) {
				lock.abandonJoining();
				Throwable cause = ScriptCommands.unwrap(ex);
				throw (cause instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException("Could not subscribe to " + channel, cause);
			}
			lock.join(waiter);
			return lock;
		});
	}

	/** The periodic sweep that the design notes' Lifetime and Recovery tell of. */
	void sweep() {
		long idleSince = System.nanoTime() - this.lingerNanos;
		ReleaseSubscriber<?> current = this.subscriber.now();
		if (current != null) {
			current.repair();
		}
		for (String channel : this.channels.keySet()) {
			this.channels.computeIfPresent(channel, (name, lock) -> {
				if (current != null && lock.isIdleSince(idleSince) && !lock.subscription().isNeverAsked()) {
					// In this compute, so that a later waiter's subscribe comes after it.
					lock.subscription().unsubscribe(current, name);
				}
				return lock.isUnused() ? null : lock;
			});
		}
		if (current != null) {
			this.channels.forEach((channel, lock) -> {
				if (lock.waiterCount() > 0 && lock.subscription().isIdle()) {
					logger.debug(LogMessage.format("Subscribing again to %s, which has waiters", channel));
					// Its confirmation wakes the waiters; the next sweep retries.
					lock.subscription().subscribe(current, channel);
				}
			});
		}
	}

	void onMessage(String channel, byte[] body) {
		WakeUp wakeUp = LockKind.wakeUpOf(body, this.ownReleasePrefix);
		LocalLock lock = this.channels.get(channel);
		if (lock != null) {
			if (wakeUp.endsYield()) {
				lock.endYield();
			}
			wakeUp.waking().accept(lock);
		}
	}

	/** Redis confirmed a subscription, first or again: messages may have been missed. */
	void onSubscribed(String channel) {
		// A confirmation for nobody (its waiter gave up) is recorded, for the sweep.
		LocalLock lock = this.channels.computeIfAbsent(channel, (name) -> new LocalLock());
		lock.subscription().confirmed();
		lock.signalAll();
	}

	/** Redis ended a subscription, asked to or not. */
	void onUnsubscribed(String channel) {
		// A channel unsubscribed on purpose has no entry, or a new one: this was unasked.
		LocalLock lock = this.channels.get(channel);
		if (lock != null) {
			lock.subscription().lost();
		}
	}

	/** Messages of every channel may have been missed: the connection is new. */
	void onAllMissed() {
		wakeAll();
	}

	/** Every subscription is gone, for now (Lettuce reconnects) or for good (dropped). */
	void onAllLost() {
		this.channels.values().forEach((lock) -> lock.subscription().reset());
	}

	/** Number of channels subscribed for waiters, for tests and diagnostics. */
	int subscribedChannels() {
		return count((lock) -> lock.subscription().isNeverAsked() ? 0 : 1);
	}

	int waiterCount() {
		return count(LocalLock::waiterCount);
	}

	/** Number of threads waiting for locks of the given mode, for diagnostics. */
	int waiterCount(LockMode mode) {
		return count((lock) -> lock.waiterCount(mode));
	}

	/** Number of threads asleep now, for diagnostics and tests awaiting a last try. */
	int sleepingWaiterCount() {
		return count(LocalLock::sleepingCount);
	}

	private int count(ToIntFunction<LocalLock> counted) {
		return this.channels.values().stream().mapToInt(counted).sum();
	}

	/**
	 * Report each channel that has waiters now, with their number per mode (a channel
	 * carries both sides of a read/write lock), for diagnostics.
	 */
	void forEachWaited(WaitedChannel action) {
		this.channels.forEach((channel, lock) -> {
			if (lock.waiterCount() > 0) {
				for (LockMode mode : LockMode.values()) {
					int size = lock.waiterCount(mode);
					if (size > 0) {
						action.accept(channel, mode, size);
					}
				}
			}
		});
	}

	/** The connection's status; disconnected while a channel with waiters is not. */
	SubscriptionStatus status() {
		ReleaseSubscriber<?> current = this.subscriber.now();
		if (current == null) {
			return SubscriptionStatus.NONE;
		}
		Predicate<LocalLock> unsubscribedWaiters = (lock) -> lock.waiterCount() > 0
				&& !lock.subscription().isConfirmed();
		return this.channels.values().stream().anyMatch(unsubscribedWaiters) ? SubscriptionStatus.DISCONNECTED
				: current.status();
	}

	/** Wake every waiter of every channel, as the engine starts to shut down. */
	void wakeAll() {
		this.channels.values().forEach(LocalLock::signalAll);
	}

	/** Close the subscription connection for good, and wake every waiter. */
	@Override
	public void close() {
		this.subscriber.close();
		wakeAll();
	}

	/**
	 * What a release message asks of this JVM's waiters of its channel, decoded by the
	 * kind that sent it: a description for logs, whom it wakes, and whether it ends this
	 * JVM's yielding of the lock (another JVM had its turn).
	 */
	record WakeUp(String description, Consumer<LocalLock> waking, boolean endsYield) {

		/** Wakes nobody: the message is not for this JVM's waiters. */
		static final WakeUp NOBODY = new WakeUp("nobody", (waiters) -> {
		}, false);

		/** Wakes one waiter; another JVM released. */
		static final WakeUp NEXT = new WakeUp("next", LocalLock::signalOne, true);

		/** Wakes every waiter, since several of them may get in together. */
		static final WakeUp ALL = new WakeUp("all", LocalLock::signalAll, false);

		/** Wakes the one waiter that asks under the given owner token. */
		static WakeUp owner(String owner) {
			return new WakeUp("owner " + owner, (waiters) -> waiters.signalOwner(owner), false);
		}

		@Override
		public String toString() {
			return this.description;
		}

	}

	/** Receives a channel's waiters of one mode ({@link #forEachWaited}). */
	@FunctionalInterface
	interface WaitedChannel {

		void accept(String channel, LockMode mode, int waiters);

	}

}
