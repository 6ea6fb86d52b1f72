package io.github.redislock.engine;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

import io.github.redislock.LockObserver;

/**
 * Records a grant from Redis as the hold of a thread of this JVM: its lease, its hold in
 * {@link LocalLocks}, and its renewal by the watchdog. Called by the thread that asked,
 * or by the Redis client's thread for a pending acquisition.
 *
 * <p>
 * A grant takes the place of any hold of the same key: Redis granted the lock to this new
 * owner, so an earlier hold in that place, still counted as held here, had lost its lease
 * in Redis (Redis lost its data, or the lease ran out before this JVM noticed). Left in
 * place, its thread would re-enter a lock held by another; it is marked lost at once, and
 * reported as the watchdog would.
 *
 * @author redis-lock
 */
final class Grants {

	private static final Log logger = LogFactory.getLog(Grants.class);

	private final LocalLocks locks;

	private final LockWatchdog watchdog;

	private final @Nullable LockObserver observer;

	Grants(LocalLocks locks, LockWatchdog watchdog, @Nullable LockObserver observer) {
		this.locks = locks;
		this.watchdog = watchdog;
		this.observer = observer;
	}

	/**
	 * Record a grant as the hold of the given thread.
	 * @param thread the thread that may re-enter the hold when the acquisition is
	 * reentrant; {@code null} for a pending acquisition, which has none
	 * @param sentAt when the acquire script was sent, from which the lease runs
	 */
	LockHold grant(Acquisition acquisition, Acquisition.Attempt attempt, @Nullable Thread thread, long sentAt) {
		LockLease lease = new LockLease(acquisition.kind(), acquisition.key(), acquisition.owner(),
				attempt.fencingToken(), acquisition.leaseMillis(), acquisition.renewed(), sentAt);
		LockHold hold = new LockHold(lease, attempt.fencingToken(), acquisition.reentrant() ? thread : null);
		lease.heldBy(hold);
		LockHold replaced = this.locks.granted(hold);
		if (replaced != null && replaced.lease() != lease && !replaced.isReleased()) {
			lostToGrant(replaced);
		}
		if (lease.isRenewed()) {
			this.watchdog.watch(lease);
		}
		return hold;
	}

	private void lostToGrant(LockHold hold) {
		LockLease lease = hold.lease();
		this.watchdog.unwatch(lease);
		if (lease.markLost()) {
			if (lease.claimLossReport()) {
				logger.warn(LogMessage.format(
						"Lost lock '%s' (fencing token %s) while it was held: Redis granted it to another owner, so "
								+ "its lease had ended there; work done under it is no longer exclusive. Its holder "
								+ "finds it lost from isHeld() and at release: stop the work, and fence its writes "
								+ "with the fencing token",
						hold.key(), hold.fencingToken()));
			}
			LockObserver observer = this.observer;
			if (observer != null) {
				observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
		}
	}

}
