package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.LockShutdownException;
import io.github.redislock.LockSnapshot;
import io.github.redislock.LockSnapshot.AwaitedLock;
import io.github.redislock.LockSnapshot.HeldLock;
import io.github.redislock.SubscriptionStatus;

/**
 * Builds the parts of a {@link RedisLockEngine} and closes them: at once those that open
 * no connection and start no thread, and the running ones ({@link Running}: the watchdog
 * and the paths built on it) at the first acquisition, which also starts the sweep of
 * idle subscriptions and connects ahead of the next calls. So an application that creates
 * an engine and never locks connects to nothing and starts no thread, and the health,
 * metrics and shutdown that read the engine never start it: they read its
 * {@link Diagnostics}.
 *
 * <p>
 * The start and the shutdown take the same lock: either the engine started before its
 * shutdown began, which then stops what runs, or it never starts.
 *
 * @author redis-lock
 */
final class EngineParts {

	/** How long a channel stays subscribed after its last waiter left. */
	private static final long SUBSCRIPTION_LINGER_MILLIS = 1000;

	private final LockOptions options;

	private final @Nullable LockObserver observer;

	private final EngineShutdown shutdown;

	private final Acquisition.OwnerTokens tokens = new Acquisition.OwnerTokens();

	/** What this JVM knows of each lock it holds or waits for. */
	private final LocalLocks locks;

	private final EngineThreads threads;

	private final LockScripts scripts;

	private final ReleaseSubscriptions subscriptions;

	private final BackgroundReleases backgroundReleases;

	private final LockKeys keys;

	private final Diagnostics diagnostics = new Diagnostics();

	/** Guards {@link #running} and {@link #stopped}. */
	private final ReentrantLock starting = new ReentrantLock();

	private volatile @Nullable Running running;

	private boolean stopped;

	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Build the parts that start nothing.
	 * @param observer the engine's observer, guarded, or {@code null}
	 * @param executor runs the background work, or {@code null} for the engine's own pool
	 */
	EngineParts(RedisConnectionFactory connectionFactory, LockOptions options, @Nullable LockObserver observer,
			@Nullable Executor executor, EngineShutdown shutdown) {
		this.options = options;
		this.observer = observer;
		this.shutdown = shutdown;
		LockWatchdog.warnIfRenewalRoomIsShort(options.watchdogLease(), options.renewInterval());
		LockKeys keys = new LockKeys(options.keyPrefix());
		this.keys = keys;
		this.locks = new LocalLocks(keys);
		this.threads = new EngineThreads(executor);
		ReleaseMessaging messaging = new ReleaseMessaging(connectionFactory);
		this.scripts = new LockScripts(connectionFactory, keys, messaging);
		String controlChannel = keys.controlChannel();
		this.subscriptions = new ReleaseSubscriptions(
				(listener) -> messaging.subscriber(controlChannel, listener, this.threads), SUBSCRIPTION_LINGER_MILLIS,
				this.tokens.instanceId(), this.locks);
		this.backgroundReleases = new BackgroundReleases(this.scripts, this.locks, this.threads);
	}

	/**
	 * The running parts, started now by the first caller.
	 * @param key the lock the caller acquires or holds
	 * @throws LockShutdownException when the engine shut down before it started
	 */
	Running running(String key) {
		Running parts = this.running;
		if (parts != null) {
			return parts;
		}
		this.starting.lock();
		try {
			if (this.stopped) {
				throw new LockShutdownException(key);
			}
			parts = this.running;
			if (parts == null) {
				parts = start();
				this.running = parts;
			}
			return parts;
		}
		finally {
			this.starting.unlock();
		}
	}

	private Running start() {
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
				releaser, new Revocations(this.scripts, this.locks, watchdog, this.observer),
				Duration.ofNanos(watchdog.answerDeadlineNanos()));
		LockAcquirer acquirer = new LockAcquirer(this.options, this.tokens, this.scripts, this.locks,
				this.subscriptions, attempts, releaser, this.shutdown, this.threads, this.observer);
		this.threads.execute(this.scripts::prepare);
		this.threads.repeat(this.subscriptions::sweep, TimeUnit.MILLISECONDS.toNanos(SUBSCRIPTION_LINGER_MILLIS));
		return new Running(watchdog, acquirer, releaser, new LeaseExtensions(this.scripts, watchdog, this.observer),
				shutdownParts);
	}

	/**
	 * Keep the engine from starting from now on.
	 * @return the running parts, or {@code null} if it never started
	 */
	@Nullable Running stop() {
		this.starting.lock();
		try {
			this.stopped = true;
			return this.running;
		}
		finally {
			this.starting.unlock();
		}
	}

	/**
	 * Stop renewing, end the threads and close the connections; calling it again has no
	 * effect.
	 */
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

	Diagnostics diagnostics() {
		return this.diagnostics;
	}

	/** The engine's threads, for tests. */
	EngineThreads threads() {
		return this.threads;
	}

	/**
	 * The parts of an engine that run once it started: the watchdog, and the paths that
	 * renew through it.
	 */
	record Running(LockWatchdog watchdog, LockAcquirer acquirer, LockReleaser releaser, LeaseExtensions extensions,
			EngineShutdown.Parts shutdownParts) {
	}

	/**
	 * The {@link LockDiagnostics} of a {@link RedisLockEngine}: reads the engine's holds,
	 * watchdog and waiters when asked, and keeps nothing of its own, so that the lock
	 * path pays nothing for it. It starts nothing: before the first acquisition the
	 * watchdog renews no lease.
	 */
	final class Diagnostics implements LockDiagnostics {

		@Override
		public int heldCount() {
			// A hold no thread re-enters (a pending acquisition's) counts too: this JVM
			// holds its lock in Redis, so the snapshot names no thread for it.
			return EngineParts.this.locks.holdCount();
		}

		@Override
		public int renewedCount() {
			Running parts = EngineParts.this.running;
			return (parts != null) ? parts.watchdog().watchedCount() : 0;
		}

		@Override
		public int waiterCount() {
			return EngineParts.this.subscriptions.waiterCount();
		}

		@Override
		public int sleepingWaiterCount() {
			return EngineParts.this.subscriptions.sleepingWaiterCount();
		}

		@Override
		public int subscribedChannelCount() {
			return EngineParts.this.subscriptions.subscribedChannels();
		}

		@Override
		public int retriedReleaseCount() {
			return EngineParts.this.backgroundReleases.retryingCount();
		}

		@Override
		public SubscriptionStatus subscriptionStatus() {
			return EngineParts.this.subscriptions.status();
		}

		/**
		 * Take a snapshot of the holds and waiters: one walk of each.
		 */
		@Override
		public LockSnapshot snapshot() {
			long now = System.nanoTime();
			List<HeldLock> held = new ArrayList<>(EngineParts.this.locks.holdCount());
			for (LockHold hold : EngineParts.this.locks.holds()) {
				if (!hold.isReleased()) {
					Thread owner = hold.ownerThread();
					LockLease lease = hold.lease();
					held.add(new HeldLock(hold.key(), (owner != null) ? owner.getName() : null,
							Instant.ofEpochMilli(hold.acquiredAtMillis()),
							Duration.ofNanos(lease.expiresAtNanos() - now), lease.isRenewed(), hold.fencingToken(),
							lease.isLost()));
				}
			}
			List<AwaitedLock> awaited = new ArrayList<>();
			EngineParts.this.subscriptions.forEachWaited((channel, waiters) -> awaited
				.add(new AwaitedLock(EngineParts.this.keys.nameOfReleaseChannel(channel), waiters)));
			return new LockSnapshot(List.copyOf(held), List.copyOf(awaited));
		}

		@Override
		public String toString() {
			return "LockDiagnostics[held=" + heldCount() + ", renewed=" + renewedCount() + ", waiters=" + waiterCount()
					+ ", channels=" + subscribedChannelCount() + ", retriedReleases=" + retriedReleaseCount()
					+ ", subscription=" + subscriptionStatus() + "]";
		}

	}

}
