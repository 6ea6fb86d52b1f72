package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockSnapshot;
import io.github.redislock.LockSnapshot.AwaitedLock;
import io.github.redislock.LockSnapshot.HeldLock;
import io.github.redislock.SubscriptionStatus;

/**
 * The {@link LockDiagnostics} of a {@link RedisLockEngine}: reads the engine's holds,
 * watchdog and waiters when asked, and keeps nothing of its own, so that the lock path
 * pays nothing for it.
 *
 * @author redis-lock
 */
final class RedisLockDiagnostics implements LockDiagnostics {

	private final LocalLocks locks;

	private final ReleaseSubscriptions subscriptions;

	/** How many leases the watchdog renews: none before the engine started. */
	private final IntSupplier renewed;

	private final BackgroundReleases backgroundReleases;

	private final LockKeys keys;

	RedisLockDiagnostics(LocalLocks locks, ReleaseSubscriptions subscriptions, IntSupplier renewed,
			BackgroundReleases backgroundReleases, LockKeys keys) {
		this.locks = locks;
		this.subscriptions = subscriptions;
		this.renewed = renewed;
		this.backgroundReleases = backgroundReleases;
		this.keys = keys;
	}

	@Override
	public int heldCount() {
		// A vacant hold (LocalHandOver) counts: this JVM holds its lock in Redis, though
		// no thread does, so the snapshot names no holder for it.
		return this.locks.holdCount();
	}

	@Override
	public int renewedCount() {
		return this.renewed.getAsInt();
	}

	@Override
	public int waiterCount() {
		return this.subscriptions.waiterCount();
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

	/**
	 * Take a snapshot of the holds and waiters: one walk of each.
	 */
	@Override
	public LockSnapshot snapshot() {
		long now = System.nanoTime();
		List<HeldLock> held = new ArrayList<>(this.locks.holdCount());
		for (LockHold hold : this.locks.holds()) {
			if (!hold.isReleased()) {
				Thread owner = hold.ownerThread();
				LockLease lease = hold.lease();
				held.add(new HeldLock(hold.key(), (owner != null) ? owner.getName() : null,
						Instant.ofEpochMilli(hold.acquiredAtMillis()), Duration.ofNanos(lease.expiresAtNanos() - now),
						lease.isRenewed(), hold.fencingToken(), lease.isLost()));
			}
		}
		List<AwaitedLock> awaited = new ArrayList<>();
		this.subscriptions.forEachWaited(
				(channel, waiters) -> awaited.add(new AwaitedLock(this.keys.nameOfReleaseChannel(channel), waiters)));
		return new LockSnapshot(List.copyOf(held), List.copyOf(awaited));
	}

	@Override
	public String toString() {
		return "LockDiagnostics[held=" + heldCount() + ", renewed=" + renewedCount() + ", waiters=" + waiterCount()
				+ ", channels=" + subscribedChannelCount() + ", retriedReleases=" + retriedReleaseCount()
				+ ", subscription=" + subscriptionStatus() + "]";
	}

}
