package io.github.redislock.engine;

import java.time.Duration;

import io.lettuce.core.RedisCommandInterruptedException;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockInterruptedException;
import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockRules;

/**
 * Explicit extensions of a lease ({@code LockHandle.extend}): the watchdog's
 * {@code renew.lua} as a batch of one, owner-checked, with the requested length, so that
 * the fencing token and the grant stay as they are.
 *
 * <p>
 * The expiry estimate follows the extension, shorter or longer, from when the script was
 * sent ({@link LockLease#extended}). A watched lease is then scheduled anew from that
 * expiry, so that an extension shorter than what was left does not let it lapse before
 * the renewal the old schedule planned. A replay after a reconnect sets the same lease a
 * little later: harmless.
 *
 * @author redis-lock
 */
final class LeaseExtensions {

	private final LockScripts scripts;

	private final LockWatchdog watchdog;

	private final @Nullable LockObserver observer;

	LeaseExtensions(LockScripts scripts, LockWatchdog watchdog, @Nullable LockObserver observer) {
		this.scripts = scripts;
		this.watchdog = watchdog;
		this.observer = observer;
	}

	/**
	 * Set the hold's lease to the given length from now.
	 * @throws IllegalArgumentException when the length breaks {@link LockRules}
	 * @throws LockLostException when the lock was lost
	 * @throws LockAccessException when Redis failed
	 */
	void extend(LockHold hold, Duration leaseTime) {
		LockRules.Violation violation = LockRules.leaseTime(leaseTime);
		if (violation != null) {
			throw new IllegalArgumentException(violation.message("The lease to extend lock '" + hold.key() + "' to"));
		}
		LockLease lease = hold.lease();
		if (lease.isLost()) {
			throw hold.lostException();
		}
		long millis = LockLease.millis(leaseTime);
		long sentAt = System.nanoTime();
		Long reply;
		try {
			reply = this.scripts.execute(this.scripts.renewCall(lease, millis));
		}
		catch (RedisCommandInterruptedException ex) {
			throw new LockInterruptedException(hold.key(),
					new InterruptedException("Interrupted while extending the lease"));
		}
		catch (RuntimeException ex) {
			throw new LockAccessException(hold.key(), "extend the lease of", ex);
		}
		if (!LockScripts.isRenewed(reply)) {
			if (lease.markLost() && this.observer != null) {
				this.observer.lost(hold.key(), hold.fencingToken(), hold.observerContext());
			}
			throw hold.lostException();
		}
		lease.extended(sentAt, millis);
		if (lease.isRenewed()) {
			this.watchdog.rescheduleIfWatched(lease);
		}
	}

}
