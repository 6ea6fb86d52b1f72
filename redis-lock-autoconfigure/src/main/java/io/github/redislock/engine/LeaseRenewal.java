package io.github.redislock.engine;

import java.util.concurrent.atomic.AtomicLongFieldUpdater;

import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.ScriptBatches.PreparedCall;

/**
 * One lease the watchdog watches, and the renewal it has in flight, which the tick thread
 * sends and an answer, on the client's thread, or the deadline settles.
 *
 * <p>
 * States: <em>watched</em> until released or lost, then never again (a lease watched anew
 * gets a new renewal); <em>in flight</em> from a send until its answer or its deadline
 * settles it, whichever comes first ({@link #settle}), at most one at a time.
 *
 * @author redis-lock
 */
final class LeaseRenewal {

	/** The time of no renewal in flight. */
	static final long NONE = Long.MIN_VALUE;

	private static final AtomicLongFieldUpdater<LeaseRenewal> IN_FLIGHT_SINCE = AtomicLongFieldUpdater
		.newUpdater(LeaseRenewal.class, "inFlightSince");

	private final LockLease lease;

	/** Whether the lease is still watched; a flag, so the tick needs no map lookup. */
	private volatile boolean watched = true;

	/** When the renewal in flight was sent; {@link #NONE} when none is. */
	private volatile long inFlightSince = NONE;

	private volatile @Nullable Throwable lastFailure;

	/** The renewal script call, encoded at the first renewal; tick thread only. */
	private @Nullable PreparedCall<Long> call;

	/**
	 * The lease's cluster slot, computed with its first renewal; tick thread only, -1
	 * until then.
	 */
	private int slot = -1;

	/**
	 * Whether the next renewal goes alone rather than with others of its slot: a slot
	 * being migrated refuses a script on several keys when only some of them moved
	 * ({@code TRYAGAIN}), where one on a single key is redirected to wherever its key is.
	 */
	private volatile boolean alone;

	LeaseRenewal(LockLease lease) {
		this.lease = lease;
	}

	LockLease lease() {
		return this.lease;
	}

	boolean isWatched() {
		return this.watched;
	}

	/** Stop watching the lease: it was released, lost or watched anew. */
	void unwatch() {
		this.watched = false;
	}

	/** The renewal script call, encoded once. */
	PreparedCall<Long> call(LockScripts scripts) {
		PreparedCall<Long> prepared = this.call;
		if (prepared == null) {
			prepared = scripts.renewal(this.lease);
			this.call = prepared;
		}
		return prepared;
	}

	/** The lease's cluster slot, from the key of its renewal call. */
	int slot(LockScripts scripts) {
		if (this.slot < 0) {
			this.slot = SlotHash.getSlot(call(scripts).keys()[0]);
		}
		return this.slot;
	}

	/** Send the next renewal alone: its slot is being migrated. */
	void sendAlone() {
		this.alone = true;
	}

	/** Whether this renewal goes alone; the one after it goes with others again. */
	boolean takeAlone() {
		if (!this.alone) {
			return false;
		}
		this.alone = false;
		return true;
	}

	/** Record a renewal sent at the given time, never {@link #NONE}. */
	void sent(long sentAt) {
		this.inFlightSince = sentAt;
	}

	/**
	 * End the wait for the renewal sent at the given time; false when it had ended
	 * already, by an answer or the deadline.
	 */
	boolean settle(long sentAt) {
		return IN_FLIGHT_SINCE.compareAndSet(this, sentAt, NONE);
	}

	/** Why the last renewal failed, for the warning when the lease runs out. */
	@Nullable Throwable lastFailure() {
		return this.lastFailure;
	}

	void failed(Throwable failure) {
		this.lastFailure = failure;
	}

}
