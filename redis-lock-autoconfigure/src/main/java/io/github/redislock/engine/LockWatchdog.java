package io.github.redislock.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases that have no fixed length, from one shared scheduler thread.
 *
 * <h2>Design notes</h2>
 *
 * There is no timer per lock: one periodic tick, a tenth of the renewal interval apart,
 * walks the watched leases and renews those whose last renewal is an interval old. A
 * renewal is the owner-checked {@code renew.lua}; its reply decides the lease's fate:
 * <ul>
 * <li>renewed: the lease's expiry moves to the time the renewal was <em>sent</em> plus
 * the lease length, since Redis may have run it at any moment after that;</li>
 * <li>not the owner any more: the lock expired or Redis lost it. The lease is marked
 * lost, a warning names the key, and the holder learns it from {@code isHeld()} and at
 * release;</li>
 * <li>Redis failed: the renewal is tried again at the next tick, until the last known
 * expiry passes. By then the lock has surely expired in Redis, so the lease is marked
 * lost even though Redis never said so.</li>
 * </ul>
 * The watchdog renews leases, not holds: when a lease is handed from one local thread to
 * the next, its renewal schedule carries on unchanged. A lease released while its renewal
 * is in flight is harmless: the renewal either extends a lock that is about to be deleted
 * by its owner, or finds it gone; the release unwatched the lease before deleting the
 * key, so that finding is not reported as a loss. The tick thread also runs the engine's
 * housekeeping (unsubscribing idle channels, releasing grants whose acquisition failed),
 * so the engine has one thread in all, and reports renewals, failed renewals and losses
 * to the engine's observer when it has one.
 *
 * @author redis-lock
 */
final class LockWatchdog implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LockWatchdog.class);

	private final LockScripts scripts;

	private final long renewIntervalNanos;

	/** The watched leases and the time their last renewal was sent. */
	private final ConcurrentHashMap<LockLease, Long> lastRenewed = new ConcurrentHashMap<>();

	private final ScheduledExecutorService scheduler;

	/** Told of renewals and losses, for the engine's observer; null when none. */
	private final @Nullable LeaseEvents events;

	LockWatchdog(LockScripts scripts, long renewIntervalMillis, Runnable housekeeping, long housekeepingMillis,
			@Nullable LeaseEvents events) {
		this.scripts = scripts;
		this.events = events;
		this.renewIntervalNanos = TimeUnit.MILLISECONDS.toNanos(renewIntervalMillis);
		this.scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		long tickMicros = Math.max(1000, TimeUnit.MILLISECONDS.toMicros(renewIntervalMillis) / 10);
		this.scheduler.scheduleWithFixedDelay(this::renewDue, tickMicros, tickMicros, TimeUnit.MICROSECONDS);
		this.scheduler.scheduleWithFixedDelay(guard(housekeeping), housekeepingMillis, housekeepingMillis,
				TimeUnit.MILLISECONDS);
	}

	void watch(LockLease lease) {
		// The lease runs from when the grant was requested, not from when its answer
		// arrived: a slow answer leaves less of it, and the first renewal comes sooner.
		this.lastRenewed.put(lease, lease.expiresAtNanos() - TimeUnit.MILLISECONDS.toNanos(lease.leaseMillis()));
	}

	void unwatch(LockLease lease) {
		this.lastRenewed.remove(lease);
	}

	/**
	 * Run a task on the watchdog thread, for housekeeping that must not block a caller.
	 */
	void execute(Runnable task) {
		this.scheduler.execute(guard(task));
	}

	int watchedCount() {
		return this.lastRenewed.size();
	}

	private void renewDue() {
		long now = System.nanoTime();
		this.lastRenewed.forEach((lease, last) -> {
			if (now - last >= this.renewIntervalNanos) {
				renew(lease);
			}
		});
	}

	private void renew(LockLease lease) {
		long sentAt = System.nanoTime();
		try {
			if (this.scripts.renew(lease.kind(), lease.key(), lease.owner(), lease.leaseMillis())) {
				lease.renewed(sentAt);
				this.lastRenewed.replace(lease, sentAt);
				if (this.events != null) {
					this.events.renewed(lease);
				}
				return;
			}
			lose(lease, "it expired or was taken over in Redis");
		}
		catch (RuntimeException ex) {
			if (this.events != null) {
				this.events.renewalFailed(lease, ex);
			}
			if (System.nanoTime() - lease.expiresAtNanos() >= 0) {
				lose(lease,
						"Redis could not be reached to renew it before its lease ran out (" + ex.getMessage() + ")");
			}
			else {
				logger.debug("Could not renew lock '{}'; trying again", lease.key(), ex);
			}
		}
	}

	private void lose(LockLease lease, String reason) {
		// A lease released while its renewal was in flight finds its key gone: not a
		// loss.
		if (this.lastRenewed.remove(lease) != null && lease.markLost()) {
			logger.warn("Lost lock '{}' (fencing token {}) while it was held: {}; work done under it is no longer "
					+ "exclusive", lease.key(), lease.fencingToken(), reason);
			if (this.events != null) {
				this.events.lost(lease);
			}
		}
	}

	private static Runnable guard(Runnable task) {
		return () -> {
			try {
				task.run();
			}
			catch (RuntimeException ex) {
				logger.warn("redis-lock housekeeping failed", ex);
			}
		};
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	/**
	 * What the watchdog finds about the leases it renews, reported from its thread.
	 */
	interface LeaseEvents {

		/** The lease was renewed. */
		void renewed(LockLease lease);

		/** Redis could not be reached to renew the lease; it is tried again. */
		void renewalFailed(LockLease lease, RuntimeException ex);

		/** The lease was found lost, and marked so by this call. */
		void lost(LockLease lease);

	}

}
