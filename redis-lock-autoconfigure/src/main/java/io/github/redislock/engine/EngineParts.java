package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockMode;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.LockShutdownException;
import io.github.redislock.LockSnapshot;
import io.github.redislock.LockSnapshot.AwaitedLock;
import io.github.redislock.LockSnapshot.HeldLock;
import io.github.redislock.SubscriptionStatus;
import io.github.redislock.engine.LockWatchdog.LeaseEvents;

/**
 * Builds the parts of a {@link RedisLockEngine}, reports on them when asked
 * ({@link LockDiagnostics}: the lock path pays nothing for it) and closes them. The
 * running ones ({@link Running}) start at the first acquisition, with the sweep of idle
 * subscriptions and the connections: an engine that never locks starts nothing, and
 * health, metrics and shutdown read it without starting it. The start and the shutdown
 * take one lock: either the engine started before its shutdown began, which then stops
 * what runs, or it never starts.
 *
 * @author redis-lock
 */
final class EngineParts implements LockDiagnostics {

	/** How long a channel stays subscribed after its last waiter left. */
	private static final long SUBSCRIPTION_LINGER_MILLIS = 1000;

	private final LockOptions options;

	private final @Nullable LockObserver observer;

	private final EngineShutdown shutdown;

	private final Acquisition.OwnerTokens tokens = new Acquisition.OwnerTokens();

	private final LocalLocks locks;

	private final EngineThreads threads;

	private final LockScripts scripts;

	private final ReleaseSubscriptions subscriptions;

	private final BackgroundReleases backgroundReleases;

	/**
	 * Guards the start and the stop: a private monitor, as this object is handed out as
	 * the engine's diagnostics.
	 */
	private final Object lifecycle = new Object();

	/** Written under {@link #lifecycle}, as {@link #stopped} is. */
	private volatile @Nullable Running running;

	private boolean stopped;

	private final AtomicBoolean closed = new AtomicBoolean();

	/** Build the parts that start nothing; the observer is guarded already. */
	EngineParts(RedisConnectionFactory connectionFactory, LockOptions options, @Nullable LockObserver observer,
			@Nullable Executor executor, EngineShutdown shutdown) {
		this.options = options;
		this.observer = observer;
		this.shutdown = shutdown;
		LockWatchdog.warnIfRenewalRoomIsShort(options.watchdogLease(), options.renewInterval());
		this.locks = new LocalLocks(options.keyPrefix());
		this.threads = new EngineThreads(executor);
		ReleaseMessaging messaging = new ReleaseMessaging(connectionFactory);
		this.scripts = new LockScripts(connectionFactory, options.keyPrefix(), messaging);
		String controlChannel = this.scripts.controlChannel();
		this.subscriptions = new ReleaseSubscriptions(
				(listener) -> messaging.subscriber(controlChannel, listener, this.threads), SUBSCRIPTION_LINGER_MILLIS,
				this.tokens.instanceId(), this.locks);
		this.backgroundReleases = new BackgroundReleases(this.scripts, this.locks, this.threads);
	}

	/** The running parts, started by the first caller unless the engine shut down. */
	Running running(String key) {
		Running parts = this.running;
		return (parts != null) ? parts : start(key);
	}

	private Running start(String key) {
		synchronized (this.lifecycle) {
			if (this.stopped) {
				throw new LockShutdownException(key);
			}
			Running parts = this.running;
			if (parts == null) {
				parts = newRunning();
				this.running = parts;
			}
			return parts;
		}
	}

	private Running newRunning() {
		LeaseEvents leaseEvents = new LeaseEvents.Waking(this.locks,
				(this.observer != null) ? new GuardedLockObserver.Leases(this.observer) : null);
		LockWatchdog watchdog = new LockWatchdog(this.scripts, this.options.watchdogLease(),
				this.options.renewInterval(), leaseEvents);
		HandOver handOver = new HandOver(this.scripts, this.locks, watchdog, leaseEvents, this.threads);
		LockReleaser releaser = new LockReleaser(this.scripts, this.locks, watchdog, this.backgroundReleases, handOver,
				this.threads, this.observer);
		AcquireAttempts attempts = new AcquireAttempts(this.options, this.scripts, this.locks, watchdog, this.observer,
				this.backgroundReleases);
		EngineShutdown.Parts shutdownParts = new EngineShutdown.Parts(this.locks, this.subscriptions, attempts,
				releaser, this.scripts, watchdog, this.observer);
		LockAcquirer acquirer = new LockAcquirer(this.options, this.tokens, this.scripts, this.locks,
				this.subscriptions, attempts, releaser, this.shutdown, this.threads, this.observer);
		this.threads.execute(this.scripts::prepare);
		this.threads.repeat(this.subscriptions::sweep, TimeUnit.MILLISECONDS.toNanos(SUBSCRIPTION_LINGER_MILLIS));
		return new Running(watchdog, acquirer, releaser, new LeaseExtensions(this.scripts, watchdog, this.observer),
				shutdownParts);
	}

	/** Keep the engine from starting; return the running parts, if it started. */
	@Nullable Running stop() {
		synchronized (this.lifecycle) {
			this.stopped = true;
			return this.running;
		}
	}

	/** Stop renewing, end the threads and close the connections, once. */
	void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		Running parts = stop();
		if (parts != null) {
			parts.watchdog().close();
		}
		this.threads.close();
		this.subscriptions.close();
		this.scripts.close();
	}

	LockScripts scripts() {
		return this.scripts;
	}

	/** The engine's threads, for tests. */
	EngineThreads threads() {
		return this.threads;
	}

	/** What runs once started: the watchdog, and the paths that renew through it. */
	record Running(LockWatchdog watchdog, LockAcquirer acquirer, LockReleaser releaser, LeaseExtensions extensions,
			EngineShutdown.Parts shutdownParts) {
	}

	@Override
	public int heldCount() {
		// A hold no thread re-enters (a pending acquisition's) counts too: this JVM
		// holds its lock in Redis, so the snapshot names no thread for it.
		return this.locks.holdCount();
	}

	/** Walks the holds, as {@link #snapshot()} does, without building its entries. */
	@Override
	public int heldCount(LockMode mode) {
		int count = 0;
		for (LockHold hold : this.locks.holds()) {
			if (!hold.isReleased() && hold.lease().kind().mode() == mode) {
				count++;
			}
		}
		return count;
	}

	@Override
	public int renewedCount() {
		Running parts = this.running;
		return (parts != null) ? parts.watchdog().watchedCount() : 0;
	}

	@Override
	public int waiterCount() {
		return this.subscriptions.waiterCount();
	}

	@Override
	public int waiterCount(LockMode mode) {
		return this.subscriptions.waiterCount(mode);
	}

	@Override
	public int sleepingWaiterCount() {
		return this.subscriptions.sleepingWaiterCount();
	}

	@Override
	public int subscribedChannelCount() {
		return this.subscriptions.subscribedChannels();
	}

	@Override
	public int retriedReleaseCount() {
		return this.backgroundReleases.retryingCount();
	}

	@Override
	public SubscriptionStatus subscriptionStatus() {
		return this.subscriptions.status();
	}

	@Override
	public LockSnapshot snapshot() {
		long now = System.nanoTime();
		List<HeldLock> held = new ArrayList<>(this.locks.holdCount());
		for (LockHold hold : this.locks.holds()) {
			if (!hold.isReleased()) {
				Thread owner = hold.ownerThread();
				LockLease lease = hold.lease();
				held.add(new HeldLock(hold.key(), lease.kind().mode(), (owner != null) ? owner.getName() : null,
						Instant.ofEpochMilli(hold.acquiredAtMillis()), Duration.ofNanos(lease.expiresAtNanos() - now),
						lease.isRenewed(), hold.fencingToken(), lease.isLost()));
			}
		}
		List<AwaitedLock> awaited = new ArrayList<>();
		// A channel per lock state: the permits of a name have one of their own, and the
		// readers and writers of a read/write lock share one, told apart by mode.
		this.subscriptions.forEachWaited((channel, mode, waiters) -> awaited
			.add(new AwaitedLock(this.scripts.nameOfReleaseChannel(channel), mode, waiters)));
		return new LockSnapshot(List.copyOf(held), List.copyOf(awaited));
	}

	@Override
	public String toString() {
		return "LockDiagnostics[held=" + heldCount() + ", renewed=" + renewedCount() + ", waiters=" + waiterCount()
				+ ", channels=" + subscribedChannelCount() + ", retriedReleases=" + retriedReleaseCount()
				+ ", subscription=" + subscriptionStatus() + "]";
	}

}
