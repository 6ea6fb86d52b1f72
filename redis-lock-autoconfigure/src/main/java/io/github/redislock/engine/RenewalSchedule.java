package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.jspecify.annotations.Nullable;

/**
 * The leases the watchdog watches, and when each is next due for renewal. Leases are
 * watched and unwatched from any thread; the rest is the tick thread's own.
 *
 * <h2>Design notes</h2>
 *
 * A timing wheel with one slot per tick, one renewal interval ahead, and a queue of the
 * leases already due, oldest first: adding and taking a lease cost the same however many
 * there are. A newly watched lease is due an interval after its grant was
 * <em>requested</em>, since a slow answer leaves less of the lease. A lease in flight is
 * not in the schedule; its outcome puts it back.
 *
 * <p>
 * A released lease is marked unwatched, not looked for: it is dropped when it falls due,
 * or by a pass over the schedule once released leases outnumber the watched ones. Without
 * that pass many short locks would keep every lease of the last interval reachable
 * (13,000 locks a second kept 1.3 MB a second); a pass per doubling keeps the cost per
 * released lease constant ({@code ReleasedLeasesTests}).
 *
 * @author redis-lock
 */
final class RenewalSchedule {

	/** Released leases held beyond the watched ones before a pass: small ones wait. */
	private static final int DROP_SLACK = 1024;

	private final long tickNanos;

	private final long leaseNanos;

	private final long renewIntervalNanos;

	private final ConcurrentHashMap<LockLease, LeaseRenewal> watched = new ConcurrentHashMap<>();

	/** Leases watched since the last tick. */
	private final Queue<LeaseRenewal> added = new ConcurrentLinkedQueue<>();

	private final @Nullable ArrayDeque<LeaseRenewal>[] slots;

	/** Due and not yet taken, in the order they fell due. */
	private final ArrayDeque<LeaseRenewal> due = new ArrayDeque<>();

	/** The last tick whose slot was moved to {@link #due}. */
	private long tick;

	/** How many leases the wheel and the due queue hold, released ones included. */
	private int size;

	/** An empty schedule; nothing is scheduled more than a renew interval ahead. */
	@SuppressWarnings("unchecked")
	RenewalSchedule(long tickNanos, long leaseNanos, long renewIntervalNanos, long now) {
		this.tickNanos = tickNanos;
		this.leaseNanos = leaseNanos;
		this.renewIntervalNanos = renewIntervalNanos;
		this.slots = new ArrayDeque[Math.toIntExact(renewIntervalNanos / tickNanos + 2)];
		this.tick = Math.floorDiv(now, tickNanos);
	}

	void watch(LockLease lease) {
		LeaseRenewal renewal = new LeaseRenewal(lease);
		LeaseRenewal replaced = this.watched.put(lease, renewal);
		if (replaced != null) {
			replaced.unwatch();
		}
		this.added.add(renewal);
	}

	/** Schedule the lease anew from its expiry as it is now, if it is still watched. */
	void rescheduleIfWatched(LockLease lease) {
		this.watched.computeIfPresent(lease, (watchedLease, previous) -> {
			previous.unwatch();
			LeaseRenewal renewal = new LeaseRenewal(watchedLease);
			this.added.add(renewal);
			return renewal;
		});
	}

	void unwatch(LockLease lease) {
		LeaseRenewal renewal = this.watched.remove(lease);
		if (renewal != null) {
			renewal.unwatch();
		}
	}

	int watchedCount() {
		return this.watched.size();
	}

	/**
	 * Stop watching a lease whose renewal found it lost, and mark it so; true for the
	 * call that marked it, never for a lease released meanwhile.
	 */
	boolean lose(LeaseRenewal renewal) {
		if (!this.watched.remove(renewal.lease(), renewal)) {
			return false;
		}
		renewal.unwatch();
		return renewal.lease().markLost();
	}

	/** Schedule for the given time; one that is past is due at once. */
	void add(LeaseRenewal renewal, long dueAt) {
		this.size++;
		long dueTick = Math.floorDiv(dueAt, this.tickNanos);
		if (dueTick <= this.tick) {
			this.due.addLast(renewal);
			return;
		}
		// Never further ahead than the wheel turns before coming back to the slot.
		dueTick = Math.min(dueTick, this.tick + this.slots.length - 1);
		int index = (int) Math.floorMod(dueTick, (long) this.slots.length);
		ArrayDeque<LeaseRenewal> slot = this.slots[index];
		if (slot == null) {
			slot = new ArrayDeque<>();
			this.slots[index] = slot;
		}
		slot.addLast(renewal);
	}

	/** Make due what is scheduled until now, add new leases, drop released ones. */
	void advance(long now) {
		long target = Math.floorDiv(now, this.tickNanos);
		long last = Math.min(target, this.tick + this.slots.length);
		for (long next = this.tick + 1; next <= last; next++) {
			ArrayDeque<LeaseRenewal> slot = this.slots[(int) Math.floorMod(next, (long) this.slots.length)];
			if (slot != null && !slot.isEmpty()) {
				this.due.addAll(slot);
				slot.clear();
			}
		}
		this.tick = Math.max(this.tick, target);
		LeaseRenewal renewal;
		while ((renewal = this.added.poll()) != null) {
			if (renewal.isWatched()) {
				add(renewal, renewal.lease().expiresAtNanos() - this.leaseNanos + this.renewIntervalNanos);
			}
		}
		if (this.size > 2 * this.watched.size() + DROP_SLACK) {
			dropReleased();
		}
	}

	boolean hasDue() {
		return !this.due.isEmpty();
	}

	/** Take the lease that has been due the longest; null when none is. */
	@Nullable LeaseRenewal pollDue() {
		LeaseRenewal renewal = this.due.pollFirst();
		if (renewal != null) {
			this.size--;
		}
		return renewal;
	}

	int size() {
		return this.size;
	}

	private void dropReleased() {
		for (ArrayDeque<LeaseRenewal> slot : this.slots) {
			if (slot != null) {
				int before = slot.size();
				slot.removeIf((renewal) -> !renewal.isWatched());
				this.size -= before - slot.size();
			}
		}
		int before = this.due.size();
		this.due.removeIf((renewal) -> !renewal.isWatched());
		this.size -= before - this.due.size();
	}

}
