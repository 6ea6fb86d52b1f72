package io.github.redislock.engine;

import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * What the outcome of a renewal means for its lease, decided on the watchdog's tick
 * thread:
 * <ul>
 * <li>renewed: the lease is due again an interval after the renewal was sent (its expiry
 * moved already, on the client's thread), and the observer is told;</li>
 * <li>not the owner any more: the lock expired or Redis lost it; the lease is marked lost
 * and a warning names the key;</li>
 * <li>Redis failed, or did not answer by the deadline: the renewal is sent again a tenth
 * of an interval later, or at once after a deadline;</li>
 * <li>the lease's last known expiry passed: it is marked lost, since by then the lock has
 * surely expired in Redis.</li>
 * </ul>
 * A lease released meanwhile is no longer watched, and its renewal's outcome means
 * nothing: a key found gone is not a loss.
 *
 * @author redis-lock
 */
final class RenewalOutcomes implements RenewalWindow.Settled {

	/** The watchdog's: applications configure the watchdog's warnings under its name. */
	private static final Log logger = LogFactory.getLog(LockWatchdog.class);

	private final ConcurrentHashMap<LockLease, LeaseRenewal> watched;

	private final RenewalSchedule<LeaseRenewal> schedule;

	private final long renewIntervalNanos;

	/** Told of renewals and losses, for the engine's observer; null when none. */
	private final @Nullable LeaseEvents events;

	/**
	 * Decide the fates of the watched leases.
	 * @param watched the watchdog's leases, from which a lost one is removed
	 * @param schedule where a lease waits for its next renewal
	 * @param renewIntervalNanos how often a lease is renewed
	 * @param events told of renewals and losses, or {@code null}
	 */
	RenewalOutcomes(ConcurrentHashMap<LockLease, LeaseRenewal> watched, RenewalSchedule<LeaseRenewal> schedule,
			long renewIntervalNanos, @Nullable LeaseEvents events) {
		this.watched = watched;
		this.schedule = schedule;
		this.renewIntervalNanos = renewIntervalNanos;
		this.events = events;
	}

	/** Report what an answer found, and schedule the lease's next renewal. */
	@Override
	public void answered(RenewalAttempt attempt) {
		LeaseRenewal renewal = attempt.renewal();
		LockLease lease = renewal.lease();
		Throwable failure = attempt.failure();
		if (failure != null) {
			if (attempt.isAwaited()) {
				failed(renewal, failure, attempt.sentAt() + this.renewIntervalNanos / 10);
			}
		}
		else if (attempt.isRenewed()) {
			if (this.events != null) {
				this.events.renewed(lease);
			}
			if (attempt.isAwaited() && renewal.isWatched()) {
				this.schedule.add(renewal, attempt.sentAt() + this.renewIntervalNanos);
			}
		}
		else if (lose(renewal)) {
			// Redis said the lock is no longer the owner's.
			reportLost(lease, "it expired or was taken over in Redis");
		}
	}

	@Override
	public void failed(LeaseRenewal renewal, Throwable failure, long retryAt) {
		if (!renewal.isWatched()) {
			return;
		}
		renewal.failed(failure);
		LockLease lease = renewal.lease();
		logger.debug(LogMessage.format("Could not renew lock '%s'; trying again", lease.key()), failure);
		if (this.events != null) {
			this.events.renewalFailed(lease, (failure instanceof RuntimeException runtime) ? runtime
					: new RedisException("Could not renew lock '" + lease.key() + "'", failure));
		}
		this.schedule.add(renewal, retryAt);
	}

	/** A lease whose last known expiry passed without a renewal. */
	@Override
	public void expired(LeaseRenewal renewal) {
		if (lose(renewal)) {
			Throwable failure = renewal.lastFailure();
			reportLost(renewal.lease(), (failure != null)
					? "Redis could not be reached to renew it before its lease ran out (" + failure.getMessage() + ")"
					: "Redis did not answer its renewal before its lease ran out");
		}
	}

	/** Mark the lease lost; true for the call that did. */
	private boolean lose(LeaseRenewal renewal) {
		// A lease released while its renewal was in flight finds its key gone: not a
		// loss.
		if (!this.watched.remove(renewal.lease(), renewal)) {
			return false;
		}
		renewal.unwatch();
		return renewal.lease().markLost();
	}

	private void reportLost(LockLease lease, String reason) {
		// The one warning of the loss, unless its holder was told of it already.
		if (lease.claimLossReport()) {
			logger.warn(LogMessage.format("Lost lock '%s' (fencing token %s) while it was held: %s; work done under "
					+ "it is no longer exclusive. Its holder finds it lost from isHeld() and at release: stop the work, "
					+ "and fence its writes with the fencing token so that they are refused once another owner holds "
					+ "it", lease.key(), lease.fencingToken(), reason));
		}
		if (this.events != null) {
			this.events.lost(lease);
		}
	}

}
