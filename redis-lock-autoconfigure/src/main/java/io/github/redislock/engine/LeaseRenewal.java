package io.github.redislock.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

import io.lettuce.core.cluster.SlotHash;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.ScriptBatches.Answer;
import io.github.redislock.engine.ScriptCommands.PreparedCall;

/**
 * One lease the watchdog watches, and its renewals sent, each an {@link Attempt}.
 *
 * <p>
 * States: <em>watched</em> until released or lost, then never again (a lease watched anew
 * gets a new renewal); <em>in flight</em>, one attempt at a time, until its answer
 * (client thread) or its deadline (tick thread) settles it, whichever comes first
 * ({@link #settle}). A late answer of an earlier attempt still counts when it says Redis
 * renewed the lease, since Redis did so after that attempt was sent.
 *
 * @author redis-lock
 */
final class LeaseRenewal {

	/** The time of no renewal in flight. */
	static final long NONE = Long.MIN_VALUE;

	private static final AtomicLongFieldUpdater<LeaseRenewal> IN_FLIGHT_SINCE = AtomicLongFieldUpdater
		.newUpdater(LeaseRenewal.class, "inFlightSince");

	private final LockLease lease;

	/** Whether the lease is still watched: a flag, so the tick needs no map lookup. */
	private volatile boolean watched = true;

	/** When the renewal in flight was sent; {@link #NONE} when none is. */
	private volatile long inFlightSince = NONE;

	private volatile @Nullable Throwable lastFailure;

	/** {@code renew.lua} as a batch of one, and its slot; tick thread only. */
	private @Nullable PreparedCall<Long> call;

	private int slot;

	/**
	 * Whether the next renewal goes alone: a slot being migrated refuses a script on
	 * several keys when only some moved ({@code TRYAGAIN}), but redirects one on a single
	 * key to wherever its key is.
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

	PreparedCall<Long> call(LockScripts scripts) {
		PreparedCall<Long> prepared = this.call;
		if (prepared == null) {
			prepared = scripts.renewCall(this.lease, this.lease.leaseMillis()).prepared();
			this.call = prepared;
			this.slot = SlotHash.getSlot(prepared.keys()[0]);
		}
		return prepared;
	}

	int slot(LockScripts scripts) {
		call(scripts);
		return this.slot;
	}

	/** Send the next renewal alone: its slot is being migrated. */
	void sendAlone() {
		this.alone = true;
	}

	/** Whether this renewal goes alone; the one after it goes with others again. */
	boolean takeAlone() {
		// Written only when set, so that a refusal answered meanwhile is not erased.
		if (!this.alone) {
			return false;
		}
		this.alone = false;
		return true;
	}

	/** Record a renewal sent at the given time (never {@link #NONE}) in the window. */
	Attempt send(long sentAt, AtomicInteger window) {
		this.inFlightSince = sentAt;
		window.incrementAndGet();
		return new Attempt(sentAt, window);
	}

	/** End the wait for the renewal sent at the given time; false if it had ended. */
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

	/**
	 * One renewal sent, and what its answer found. States: <em>counted</em> against the
	 * window, <em>stalled</em> (no longer counted), <em>answered</em>; whichever of the
	 * answer and the stall leaves the counted state first gives its place back, once. The
	 * answer's fields are written before its state and read after {@link #isAnswered()}.
	 */
	final class Attempt implements Answer<Long> {

		private static final int COUNTED = 0;

		private static final int STALLED = 1;

		private static final int ANSWERED = 2;

		private static final AtomicIntegerFieldUpdater<Attempt> STATE = AtomicIntegerFieldUpdater
			.newUpdater(Attempt.class, "state");

		private final long sentAt;

		private final AtomicInteger window;

		private volatile int state = COUNTED;

		/** Whether the answer, not the deadline, settled the renewal. */
		private boolean awaited;

		private boolean renewed;

		private @Nullable Throwable failure;

		private Attempt(long sentAt, AtomicInteger window) {
			this.sentAt = sentAt;
			this.window = window;
		}

		/** Record the answer; runs on the Redis client's thread. */
		@Override
		public void answered(@Nullable Long reply, @Nullable Throwable failure) {
			this.awaited = settle(this.sentAt);
			if (failure != null) {
				this.failure = failure;
			}
			else if (LockScripts.isRenewed(reply)) {
				// Late or not, it is true: Redis renewed the lease after it was sent.
				LeaseRenewal.this.lease.renewed(this.sentAt);
				this.renewed = true;
			}
			if (STATE.getAndSet(this, ANSWERED) == COUNTED) {
				this.window.decrementAndGet();
			}
		}

		void stall() {
			if (STATE.compareAndSet(this, COUNTED, STALLED)) {
				this.window.decrementAndGet();
			}
		}

		boolean isAnswered() {
			return this.state == ANSWERED;
		}

		LeaseRenewal renewal() {
			return LeaseRenewal.this;
		}

		long sentAt() {
			return this.sentAt;
		}

		boolean isAwaited() {
			return this.awaited;
		}

		boolean isRenewed() {
			return this.renewed;
		}

		@Nullable Throwable failure() {
			return this.failure;
		}

	}

}
