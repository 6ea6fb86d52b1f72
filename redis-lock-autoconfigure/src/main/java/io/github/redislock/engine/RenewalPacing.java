package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

/**
 * Decides when the watchdog sends renewals that are due but outnumber the room in its
 * {@link RenewalWindow}: at once when there is room for half a batch, else once a short
 * wait has passed.
 *
 * <h2>Design notes</h2>
 *
 * Many leases that fall due together fill the window, and answers then free its room a
 * script call (a {@linkplain RenewalChunks chunk}) at a time. Sent as soon as the room
 * allows, the remaining renewals would leave a chunk or two at a time, each in a write of
 * its own: the benchmarks counted 924 write system calls for the 1,012 calls that renewed
 * 100,000 leases. Waiting until half a batch fits sends five chunks or more in one
 * dispatch, written to the connection together. The wait is bounded: the window's room
 * may stay short for longer, while renewals to a stalled server count against it (up to a
 * quarter of the renew interval), and the renewals of the other servers must go on. A due
 * renewal waits at most {@value #MAX_WAIT_MILLIS} ms (a hundredth of the renew interval
 * when that is shorter) more than before, while its lease has two thirds of its length
 * left by default.
 * <p>
 * Used by the watchdog's tick thread only.
 *
 * @author redis-lock
 */
final class RenewalPacing {

	/** The longest a due renewal is held back for want of room for half a batch. */
	static final long MAX_WAIT_MILLIS = 10;

	private final int batch;

	private final long maxWaitNanos;

	/** When renewals were first held back since the last send, or {@code NONE}. */
	private long holdingSince = LeaseRenewal.NONE;

	/**
	 * @param batch how many leases the watchdog sends at once at most
	 * @param renewIntervalNanos how often a lease is renewed
	 */
	RenewalPacing(int batch, long renewIntervalNanos) {
		this.batch = batch;
		this.maxWaitNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS), renewIntervalNanos / 100);
	}

	/**
	 * Whether to hold the due renewals back for now.
	 * @param room how many renewals the window lets through now
	 * @param due how many are due, released leases that are yet to be dropped included
	 * @param now the current time, {@code System.nanoTime()}
	 */
	boolean holdBack(int room, int due, long now) {
		if (due <= room || room >= this.batch / 2) {
			this.holdingSince = LeaseRenewal.NONE;
			return false;
		}
		if (this.holdingSince == LeaseRenewal.NONE) {
			this.holdingSince = now;
		}
		if (now - this.holdingSince < this.maxWaitNanos) {
			return true;
		}
		this.holdingSince = LeaseRenewal.NONE;
		return false;
	}

}
