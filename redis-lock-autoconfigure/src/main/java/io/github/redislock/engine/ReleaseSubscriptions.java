package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ObjIntConsumer;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of this JVM that wait for locks, woken by release messages that a
 * {@link ReleaseSubscriber} receives.
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
 * when it is the first), then tries the lock again, and only then sleeps.
 *
 * <p>
 * <b>One wake-up per release.</b> Waiters of one channel queue in arrival order. A
 * release signals the first waiter not yet signalled; the others sleep on, and are woken
 * by the next release, which the woken waiter publishes when it is done. A waiter that
 * leaves holding a signal it did not use (it timed out, was interrupted or won the lock
 * by its own try) passes it on, so a release is never swallowed. A signal is a flag plus
 * an unpark, so one that arrives before the waiter parks is not lost.
 *
 * <p>
 * <b>Handing a lock over.</b> When a lock is released while a thread of this JVM waits
 * for it, the releasing thread can give it to that waiter without a round trip: the Redis
 * grant stays as it is and the waiter wakes owning it. The hand-over happens under the
 * channel's monitor and only to a waiter still queued; a waiter that leaves with a hold
 * it did not take returns it to its caller for release, so a handed lock is never
 * dropped. The engine bounds how many times in a row a lock stays in this JVM this way.
 *
 * <p>
 * <b>Yielding to other JVMs.</b> A thread that releases a lock and at once asks for it
 * again would nearly always beat a waiter of another JVM, which must first receive the
 * release message. So when a thread of another JVM waits (the acquire script notes each
 * JVM it refuses, and the release script reports whether one other than the releaser's
 * was refused since the last release), the threads of this JVM leave the lock alone until
 * a release by another JVM arrives (each release message names its owner, whose token
 * begins with its JVM's instance id), or for a bounded time if none does, and the waiter
 * elsewhere gets its turn. A JVM that merely stays subscribed after its waiters left
 * triggers no yield. Expired windows are dropped by {@link #sweep}.
 *
 * <p>
 * <b>Fair and read/write locks.</b> Their release messages begin with a marker: a fair
 * lock's names the one waiter next in its queue ({@code >} and its owner token), whom
 * only its own JVM wakes; a read/write lock's wakes every waiter ({@code *}), since
 * several readers may get in together. Neither hands over nor yields.
 *
 * <p>
 * <b>Lost messages.</b> Pub/sub delivers at most once. When the connection drops, Lettuce
 * reconnects and subscribes again; each confirmation reaches {@link #onSubscribed} (or
 * {@link #onAllMissed} for a whole connection), which wakes the channel's waiters: they
 * try again at once, since a release may have been published while disconnected.
 *
 * <p>
 * <b>Subscription lifetime.</b> Channels are subscribed on the first waiter and
 * unsubscribed by {@link #sweep}, once they have had no waiter for a while, so that a hot
 * lock does not subscribe and unsubscribe at every wait. This map is the one record of
 * the channels that should be subscribed; each entry's {@link ChannelSubscription} says
 * whether Redis confirmed it on the current connection. A joining thread is counted in
 * its entry at once, in the map's atomic compute for the channel, then sends the
 * subscribe (or finds one in flight, or confirmed) and waits for its answer with no lock
 * held: neither this map's entry nor any monitor is held while waiting for Redis. A
 * subscribe that fails leaves the joining thread's count undone and the entry idle, to be
 * swept (with an unsubscribe, in case Redis subscribed it after all); a confirmation that
 * arrives for a channel without an entry (its waiter gave up first) makes an idle one, so
 * nothing stays subscribed unrecorded. The sweep removes an idle entry and sends its
 * unsubscribe in the same compute, so the subscribe of a waiter that arrives later, which
 * must create a new entry, follows it on the connection: an unsubscribe never overtakes a
 * later subscribe.
 *
 * <p>
 * <b>Subscriptions lost.</b> When a subscription ends without being asked to (a cluster
 * slot moved; the connection broke, and Lettuce subscribes again as it reconnects, which
 * may fail; the subscriber dropped its connection, as it does when an unsubscribe goes
 * unanswered, and opens another), {@link #onUnsubscribed} or {@link #onAllLost} mark the
 * channels unsubscribed until a confirmation arrives, and every sweep subscribes again
 * each channel that has waiters and is neither subscribed nor being subscribed; its
 * confirmation wakes the waiters, who try at once. Until then {@link #status()} says
 * {@link SubscriptionStatus#DISCONNECTED}: those waiters wake only when the holder's
 * lease runs out.
 *
 * @author redis-lock
 */
final class ReleaseSubscriptions implements ReleaseSubscriber.Listener, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ReleaseSubscriptions.class);

	private final Function<ReleaseSubscriber.Listener, ReleaseSubscriber> subscriberFactory;

	/** Opened at the first subscription; {@code null} until then. */
	private volatile @Nullable ReleaseSubscriber subscriber;

	private volatile boolean closed;

	private final long lingerNanos;

	/**
	 * How release messages of this JVM's owners begin: their owner tokens' instance id.
	 */
	private final byte[] ownReleasePrefix;

	private final ConcurrentHashMap<String, ChannelWaiters> channels = new ConcurrentHashMap<>();

	/** Until when (System.nanoTime()) this JVM yields each lock to other JVMs. */
	private final ConcurrentHashMap<String, Long> yields = new ConcurrentHashMap<>();

	/**
	 * Create the waiters' registry.
	 * @param subscriberFactory opens the subscription connection at the first wait, given
	 * this registry as its listener
	 * @param lingerMillis how long a channel stays subscribed after its last waiter left
	 * @param instanceId the instance id that begins this JVM's owner tokens
	 */
	ReleaseSubscriptions(Function<ReleaseSubscriber.Listener, ReleaseSubscriber> subscriberFactory, long lingerMillis,
			String instanceId) {
		this.subscriberFactory = subscriberFactory;
		this.ownReleasePrefix = (instanceId + ":").getBytes(StandardCharsets.UTF_8);
		this.lingerNanos = TimeUnit.MILLISECONDS.toNanos(lingerMillis);
	}

	/**
	 * Queue the current thread as a waiter of the channel, once Redis confirmed the
	 * channel's subscription, subscribing first if needed.
	 * @throws RuntimeException from the Redis client when subscribing failed (with the
	 * interrupt status set when interrupted); nothing is left queued then
	 */
	Waiter join(String channel, boolean acceptsHandoff, boolean reentrant, String owner,
			@Nullable EagerAcquisition eager) {
		Waiter waiter = new Waiter(Thread.currentThread(), acceptsHandoff, reentrant, owner, eager);
		ReleaseSubscriber current = subscriber();
		ChannelWaiters waiters = this.channels.compute(channel, (name, existing) -> {
			ChannelWaiters joined = (existing != null) ? existing : new ChannelWaiters();
			// Counted at once, so that the sweep keeps the channel.
			joined.startJoining();
			return joined;
		});
		try {
			awaitSubscribed(current, channel, waiters.subscription);
		}
		catch (RuntimeException ex) {
			waiters.abandonJoining();
			throw ex;
		}
		waiters.join(waiter);
		return waiter;
	}

	private void awaitSubscribed(ReleaseSubscriber current, String channel, ChannelSubscription subscription) {
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
	 * Remove a waiter, passing on a signal it did not use.
	 * @return a hold handed to the waiter that it did not take, which the caller must
	 * release
	 */
	@Nullable LockHold leave(String channel, Waiter waiter) {
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters != null) {
			waiters.remove(waiter);
		}
		return waiter.takeHandoff();
	}

	/**
	 * Hand a lock straight to the first local waiter of the channel that accepts it,
	 * without a round trip to Redis.
	 * @param successor makes the hold of the chosen waiter's thread
	 * @param install records the new hold before its thread is woken; false when it could
	 * not, as when Redis granted the lock to another thread of this JVM meanwhile, and
	 * then nobody is woken
	 * @return whether a waiter took the lock
	 */
	boolean handOff(String channel, Function<@Nullable Thread, LockHold> successor, Predicate<LockHold> install) {
		ChannelWaiters waiters = this.channels.get(channel);
		return waiters != null && waiters.handOff(successor, install);
	}

	/**
	 * How long this JVM still yields the lock to other JVMs; 0 or less when it does not.
	 */
	long yieldingNanos(String channel) {
		Long until = this.yields.get(channel);
		return (until != null) ? until - System.nanoTime() : 0;
	}

	/**
	 * Unsubscribe channels that have had no waiter for the linger time, and subscribe
	 * again channels that have waiters but lost their subscription. Sends commands and
	 * waits for none.
	 */
	void sweep() {
		long now = System.nanoTime();
		this.yields.values().removeIf((until) -> until - now <= 0);
		ReleaseSubscriber current = this.subscriber;
		if (current == null) {
			return;
		}
		current.repair();
		for (String channel : this.channels.keySet()) {
			this.channels.computeIfPresent(channel, (name, waiters) -> {
				if (!waiters.isIdleSince(now - this.lingerNanos)) {
					return waiters;
				}
				// In this compute, so that a later waiter's subscribe comes after it.
				waiters.subscription.unsubscribe(current, name);
				return null;
			});
		}
		this.channels.forEach((channel, waiters) -> {
			if (waiters.size() > 0 && waiters.subscription.isIdle()) {
				logger.debug("Subscribing again to {}, which has waiters", channel);
				// Its confirmation wakes the waiters: see onSubscribed. A failure leaves
				// it to the next sweep.
				waiters.subscription.subscribe(current, channel);
			}
		});
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

	/** Report each channel that has waiters now, with their number, for diagnostics. */
	void forEachWaited(ObjIntConsumer<String> action) {
		this.channels.forEach((channel, waiters) -> {
			int size = waiters.size();
			if (size > 0) {
				action.accept(channel, size);
			}
		});
	}

	@Override
	public void onMessage(String channel, byte[] body) {
		// The lock kind that sent the message tells whom it wakes.
		WakeUp wakeUp = LockKind.wakeUpOf(body, this.ownReleasePrefix);
		if (wakeUp.endsYield()) {
			// Another JVM had its turn: this one yields no longer.
			this.yields.remove(channel);
		}
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters != null) {
			wakeUp.wake(waiters);
		}
	}

	/**
	 * Called by a thread of this JVM that released a lock through Redis. When a thread of
	 * another JVM waits for it (Redis refused it the lock since the last release), the
	 * waiters there get the lock first: this JVM's threads yield until another JVM
	 * releases it, or for the given time at most. One local waiter is woken either way:
	 * it tries at once, or when the yield window ends if no other JVM took the lock
	 * meanwhile.
	 * @param othersWait whether a thread of another JVM waits for the lock
	 */
	void releasedHere(String channel, boolean othersWait, long yieldNanos) {
		if (othersWait) {
			this.yields.put(channel, System.nanoTime() + yieldNanos);
		}
		signalOne(channel);
	}

	private void signalOne(String channel) {
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters != null) {
			waiters.signalOne();
		}
	}

	@Override
	public void onSubscribed(String channel) {
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters == null) {
			// Confirmed for nobody, such as a subscribe answered after its waiter gave
			// up: recorded as idle, so that the sweep unsubscribes it.
			waiters = this.channels.computeIfAbsent(channel, (name) -> new ChannelWaiters());
		}
		waiters.subscription.confirmed();
		waiters.signalAll();
	}

	@Override
	public void onUnsubscribed(String channel) {
		// A channel unsubscribed on purpose has no entry any more, or a new one whose
		// subscribe comes after: this one was not asked for.
		ChannelWaiters waiters = this.channels.get(channel);
		if (waiters != null) {
			waiters.subscription.lost();
		}
	}

	@Override
	public void onAllMissed() {
		this.channels.values().forEach(ChannelWaiters::signalAll);
	}

	@Override
	public void onAllLost() {
		this.channels.values().forEach((waiters) -> waiters.subscription.reset());
	}

	/**
	 * Commands on the subscription connection itself, or {@code null}: see
	 * {@link ReleaseSubscriber#commands()}.
	 */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> subscriptionCommands() {
		ReleaseSubscriber current = this.subscriber;
		return (current != null) ? current.commands() : null;
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
		for (ChannelWaiters waiters : this.channels.values()) {
			if (waiters.size() > 0 && !waiters.subscription.isConfirmed()) {
				return SubscriptionStatus.DISCONNECTED;
			}
		}
		return current.status();
	}

	private ReleaseSubscriber subscriber() {
		ReleaseSubscriber current = this.subscriber;
		if (current != null) {
			return current;
		}
		synchronized (this) {
			if (this.closed) {
				throw new IllegalStateException("The lock engine was closed");
			}
			if (this.subscriber == null) {
				this.subscriber = this.subscriberFactory.apply(this);
			}
			return this.subscriber;
		}
	}

	@Override
	public void close() {
		ReleaseSubscriber current;
		synchronized (this) {
			this.closed = true;
			current = this.subscriber;
		}
		if (current != null) {
			current.close();
		}
		this.channels.values().forEach(ChannelWaiters::signalAll);
	}

	/**
	 * An acquisition that the thread receiving a release message can send for a waiter.
	 */
	interface EagerAcquisition {

		/**
		 * Send the acquisition for the waiter's thread.
		 * @return the hold when granted, already recorded by the engine; {@code null}
		 * when refused; failed when Redis failed (the waiter then tries by itself)
		 */
		CompletionStage<@Nullable LockHold> start(Thread thread);

		/** Release a grant whose waiter left before it arrived. */
		void undelivered(LockHold hold);

	}

	/** A waiting thread; its signal is a flag plus an unpark. */
	static final class Waiter {

		private final Thread thread;

		private final boolean acceptsHandoff;

		/** Whether a hold handed to this waiter may be re-entered by its thread. */
		private final boolean reentrant;

		/** The owner token the waiter asks under, which a targeted wake-up names. */
		private final String owner;

		private final AtomicReference<@Nullable LockHold> handoff = new AtomicReference<>();

		private volatile boolean signalled;

		/**
		 * Sends the waiter's acquisition from the thread that received a release, or
		 * {@code null} when the waiter must try by itself.
		 */
		private final @Nullable EagerAcquisition eager;

		Waiter(Thread thread, boolean acceptsHandoff, boolean reentrant, String owner,
				@Nullable EagerAcquisition eager) {
			this.thread = thread;
			this.acceptsHandoff = acceptsHandoff;
			this.reentrant = reentrant;
			this.owner = owner;
			this.eager = eager;
		}

		/** Mark the waiter as woken without waking its thread yet. */
		void claim() {
			this.signalled = true;
		}

		/** The hold handed to this waiter, if any, now owned by the caller. */
		@Nullable LockHold takeHandoff() {
			return this.handoff.getAndSet(null);
		}

		void signal() {
			this.signalled = true;
			LockSupport.unpark(this.thread);
		}

		boolean isSignalled() {
			return this.signalled;
		}

		/**
		 * Sleep until signalled or the time is up, using up the signal.
		 * @throws InterruptedException when interrupted; the interrupt status is cleared
		 */
		void await(long nanos) throws InterruptedException {
			long deadline = System.nanoTime() + nanos;
			while (!this.signalled) {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					break;
				}
				LockSupport.parkNanos(this, remaining);
				if (Thread.interrupted()) {
					throw new InterruptedException();
				}
			}
			this.signalled = false;
		}

	}

	/** The waiters of one channel, in arrival order. */
	static final class ChannelWaiters {

		final ChannelSubscription subscription = new ChannelSubscription();

		private final ArrayDeque<Waiter> queue = new ArrayDeque<>();

		/** Threads waiting for the subscription before they queue. */
		private int joining;

		private long idleSince = System.nanoTime();

		synchronized void startJoining() {
			this.joining++;
		}

		synchronized void join(Waiter waiter) {
			this.joining--;
			this.queue.addLast(waiter);
		}

		synchronized void abandonJoining() {
			this.joining--;
			if (this.queue.isEmpty()) {
				this.idleSince = System.nanoTime();
			}
		}

		synchronized void remove(Waiter waiter) {
			this.queue.remove(waiter);
			if (this.queue.isEmpty()) {
				this.idleSince = System.nanoTime();
			}
			if (waiter.isSignalled()) {
				signalOne();
			}
		}

		synchronized void signalOne() {
			for (Waiter waiter : this.queue) {
				if (!waiter.isSignalled()) {
					waiter.signal();
					return;
				}
			}
		}

		/**
		 * Wake the first waiter not yet woken. One that can be acquired for eagerly is
		 * claimed instead, its acquisition sent from this thread, and its thread woken
		 * when the answer arrives, holding the grant if there is one.
		 */
		void wakeOne() {
			Waiter claimed;
			synchronized (this) {
				claimed = null;
				for (Waiter waiter : this.queue) {
					if (!waiter.isSignalled()) {
						if (waiter.eager == null) {
							waiter.signal();
							return;
						}
						waiter.claim();
						claimed = waiter;
						break;
					}
				}
			}
			if (claimed != null) {
				Waiter waiter = claimed;
				waiter.eager.start(waiter.thread).whenComplete((hold, ex) -> {
					if (hold != null && !deliver(waiter, hold)) {
						waiter.eager.undelivered(hold);
					}
					waiter.signal();
				});
			}
		}

		/** Give a grant to a waiter that is still queued. */
		private synchronized boolean deliver(Waiter waiter, LockHold hold) {
			if (!this.queue.contains(waiter) || !waiter.handoff.compareAndSet(null, hold)) {
				return false;
			}
			return true;
		}

		synchronized void signalOwner(String owner) {
			for (Waiter waiter : this.queue) {
				if (waiter.owner.equals(owner)) {
					waiter.signal();
					return;
				}
			}
		}

		synchronized void signalAll() {
			this.queue.forEach(Waiter::signal);
		}

		synchronized boolean handOff(Function<@Nullable Thread, LockHold> successor, Predicate<LockHold> install) {
			for (Waiter waiter : this.queue) {
				if (waiter.acceptsHandoff && waiter.handoff.get() == null) {
					LockHold next = successor.apply(waiter.reentrant ? waiter.thread : null);
					if (!install.test(next)) {
						return false;
					}
					waiter.handoff.set(next);
					waiter.signal();
					return true;
				}
			}
			return false;
		}

		synchronized int size() {
			return this.queue.size();
		}

		synchronized boolean isIdleSince(long time) {
			return this.queue.isEmpty() && this.joining == 0 && this.idleSince - time <= 0;
		}

	}

}
