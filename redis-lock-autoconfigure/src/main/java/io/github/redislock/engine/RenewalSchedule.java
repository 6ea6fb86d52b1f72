package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * When each watched lease is next due for renewal: a timing wheel with one slot per
 * watchdog tick, covering one renewal interval ahead, and a queue of the leases already
 * due, oldest first. Putting a lease in and taking it out cost the same however many
 * leases there are, where a sorted queue would cost more per lease as they grow.
 *
 * <p>
 * Used by the watchdog's tick thread only.
 *
 * @param <T> what is scheduled
 * @author redis-lock
 */
final class RenewalSchedule<T> {

	private final long tickNanos;

	private final @Nullable ArrayDeque<T>[] slots;

	/** Due and not yet taken, in the order they fell due. */
	private final ArrayDeque<T> due = new ArrayDeque<>();

	/** The last tick whose slot was moved to {@link #due}. */
	private long tick;

	/** How many items the wheel and the due queue hold. */
	private int size;

	/**
	 * Create an empty schedule.
	 * @param tickNanos how long one tick lasts
	 * @param horizonNanos how far ahead of the current time anything is scheduled at most
	 * @param now the current time, {@code System.nanoTime()}
	 */
	@SuppressWarnings("unchecked")
	RenewalSchedule(long tickNanos, long horizonNanos, long now) {
		this.tickNanos = tickNanos;
		this.slots = new ArrayDeque[Math.toIntExact(horizonNanos / tickNanos + 2)];
		this.tick = Math.floorDiv(now, tickNanos);
	}

	/** Schedule for the given time; one that is past is due at once. */
	void add(T item, long dueAt) {
		this.size++;
		long itemTick = Math.floorDiv(dueAt, this.tickNanos);
		if (itemTick <= this.tick) {
			this.due.addLast(item);
			return;
		}
		// Never further ahead than the wheel turns before coming back to the slot.
		itemTick = Math.min(itemTick, this.tick + this.slots.length - 1);
		int index = (int) Math.floorMod(itemTick, (long) this.slots.length);
		ArrayDeque<T> slot = this.slots[index];
		if (slot == null) {
			slot = new ArrayDeque<>();
			this.slots[index] = slot;
		}
		slot.addLast(item);
	}

	/** Make due what is scheduled up to the given time. */
	void advance(long now) {
		long target = Math.floorDiv(now, this.tickNanos);
		long last = Math.min(target, this.tick + this.slots.length);
		for (long next = this.tick + 1; next <= last; next++) {
			ArrayDeque<T> slot = this.slots[(int) Math.floorMod(next, (long) this.slots.length)];
			if (slot != null && !slot.isEmpty()) {
				this.due.addAll(slot);
				slot.clear();
			}
		}
		this.tick = Math.max(this.tick, target);
	}

	boolean hasDue() {
		return !this.due.isEmpty();
	}

	/** How many items are due and not yet taken. */
	int dueCount() {
		return this.due.size();
	}

	/** Take the item that has been due the longest; null when none is due. */
	@Nullable T pollDue() {
		T item = this.due.pollFirst();
		if (item != null) {
			this.size--;
		}
		return item;
	}

	/** How many items are scheduled, due ones included. */
	int size() {
		return this.size;
	}

	/**
	 * Drop the items that match, wherever they are scheduled: a pass over every item, for
	 * a caller that lets dropped items pile up until they outnumber the others.
	 */
	void removeIf(Predicate<T> filter) {
		int removed = 0;
		for (ArrayDeque<T> slot : this.slots) {
			if (slot != null) {
				int before = slot.size();
				slot.removeIf(filter);
				removed += before - slot.size();
			}
		}
		int before = this.due.size();
		this.due.removeIf(filter);
		removed += before - this.due.size();
		this.size -= removed;
	}

}
