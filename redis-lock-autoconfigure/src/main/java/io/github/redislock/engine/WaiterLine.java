package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The waiters of one {@link LocalLock}, in arrival order, and the threads about to join
 * them. Not thread-safe: its lock guards it, and states the rules it keeps.
 *
 * @author redis-lock
 */
final class WaiterLine {

	/** Made at the first waiter: most locks never have one. */
	private @Nullable ArrayDeque<Waiter> queue;

	/** Threads waiting for the subscription before they queue. */
	private int joining;

	private long idleSince = System.nanoTime();

	void startJoining() {
		this.joining++;
	}

	void join(Waiter waiter) {
		this.joining--;
		if (this.queue == null) {
			this.queue = new ArrayDeque<>(4);
		}
		this.queue.addLast(waiter);
	}

	void abandonJoining() {
		this.joining--;
		markIdleIfEmpty();
	}

	/**
	 * Remove a waiter, passing on a signal it did not use, or its turn when it was first
	 * in line and leaves without the lock.
	 */
	void remove(Waiter waiter, boolean granted) {
		boolean wasFirst = waiter.isOrderedHere() && first() == waiter;
		if (this.queue != null) {
			this.queue.remove(waiter);
		}
		markIdleIfEmpty();
		if (waiter.isSignalled() || (wasFirst && !granted)) {
			signalOne();
		}
	}

	private void markIdleIfEmpty() {
		if (size() == 0) {
			this.idleSince = System.nanoTime();
		}
	}

	/** The first waiter of those that take their turn in this JVM's order, or none. */
	@Nullable Waiter first() {
		if (this.queue != null) {
			for (Waiter waiter : this.queue) {
				if (waiter.isOrderedHere()) {
					return waiter;
				}
			}
		}
		return null;
	}

	/** Wake the first waiter not yet woken. */
	void signalOne() {
		if (this.queue != null) {
			for (Waiter waiter : this.queue) {
				if (!waiter.isSignalled()) {
					waiter.signal();
					return;
				}
			}
		}
	}

	/** Wake the waiter that asks under the given owner token, if it is queued here. */
	void signalOwner(String owner) {
		if (this.queue != null) {
			for (Waiter waiter : this.queue) {
				if (waiter.owner().equals(owner)) {
					waiter.signal();
					return;
				}
			}
		}
	}

	void signalAll() {
		if (this.queue != null) {
			this.queue.forEach(Waiter::signal);
		}
	}

	int size() {
		return (this.queue != null) ? this.queue.size() : 0;
	}

	int sleepingCount() {
		int count = 0;
		for (Waiter waiter : waiters()) {
			if (waiter.isSleeping()) {
				count++;
			}
		}
		return count;
	}

	List<Waiter> waiters() {
		return (this.queue != null) ? new ArrayList<>(this.queue) : List.of();
	}

	/** Whether it has had no waiter and no joining thread since the given time. */
	boolean isIdleSince(long time) {
		return size() == 0 && this.joining == 0 && this.idleSince - time <= 0;
	}

	boolean isEmpty() {
		return size() == 0 && this.joining == 0;
	}

}
