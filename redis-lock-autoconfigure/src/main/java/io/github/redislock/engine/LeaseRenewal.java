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
 * gets a new renewal); <em>in flight</em> from a send until its answer, on the client's
 * thread, or its deadline, on the tick thread, settles it, whichever comes first
 * ({@link #settle}), one at a time. A renewal sent again after its deadline is a new
 * attempt; the old one's late answer still counts when it says that Redis renewed the
 * lease, since it did so after that attempt was sent.
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

	/**
	 * The lease's renewal, {@code renew.lua} as a batch of one, encoded at the first
	 * renewal; tick thread only.
	 */
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

	/** The lease's renewal, a batch of one, encoded once. */
	PreparedCall<Long> call(LockScripts scripts) {
		PreparedCall<Long> prepared = this.call;
		if (prepared == null) {
			prepared = scripts.renewCall(this.lease, this.lease.leaseMillis()).prepared();
			this.call = prepared;
		}
		return prepared;
	}

	/** The lease's cluster slot, from the key of its renewal. */
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

	/**
	 * Record a renewal sent at the given time, never {@link #NONE}.
	 * @param window the renewals counted against the watchdog's window, which the new one
	 * joins
	 */
	Attempt send(long sentAt, AtomicInteger window) {
		this.inFlightSince = sentAt;
		window.incrementAndGet();
		return new Attempt(sentAt, window);
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

	/**
	 * One renewal sent, and what its answer found.
	 *
	 * <p>
	 * States: <em>counted</em> against the watchdog's window when sent, <em>stalled</em>
	 * when the tick stops counting it (it waits for a stalled server), <em>answered</em>
	 * when the answer arrives, from either. Whichever of the answer and the tick leaves
	 * the counted state first gives its place in the window back, once. The answer's
	 * fields are written on the client's thread before its state is set, and read on the
	 * tick thread after {@link #isAnswered()}.
	 */
	final class Attempt implements Answer<Long> {

		private static final int COUNTED = 0;

		private static final int STALLED = 1;

		private static final int ANSWERED = 2;

		private static final AtomicIntegerFieldUpdater<Attempt> STATE = AtomicIntegerFieldUpdater
			.newUpdater(Attempt.class, "state");

		private final long sentAt;

		/**
		 * The renewals counted against the window, this one among them until it leaves.
		 */
		private final AtomicInteger window;

		private volatile int state = COUNTED;

		/**
		 * Whether the answer settled the renewal, rather than came after its deadline.
		 */
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

		/** Stop counting it against the window. */
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

		/**
		 * Whether the answer settled the renewal, rather than came after its deadline.
		 */
		boolean isAwaited() {
			return this.awaited;
		}

		/** Whether Redis said the lease was renewed. */
		boolean isRenewed() {
			return this.renewed;
		}

		/** How the renewal failed, or {@code null}. */
		@Nullable Throwable failure() {
			return this.failure;
		}

	}

}
