package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The waiters of one release channel, in arrival order, and what this JVM knows of the
 * channel's subscription.
 *
 * <h2>Design notes</h2>
 *
 * <b>One wake-up per release.</b> A release signals the first waiter not yet signalled;
 * the others sleep on, and are woken by the next release, which the woken waiter
 * publishes when it is done. A waiter that leaves holding a signal it did not use (it
 * timed out, was interrupted or won the lock by its own try) passes it on, so a release
 * is never swallowed. A fair lock's release names the one waiter next in its queue, and a
 * read/write lock's wakes every waiter, since several readers may get in together: the
 * lock kind decodes the message into the {@link WakeUp} that says which.
 *
 * <p>
 * <b>No barging within a JVM.</b> A thread of this JVM that asks, with a wait time, while
 * others of its JVM are queued here queues behind them rather than ask Redis
 * ({@link #hasQueued}), and a queued waiter asks only when first in line or woken
 * ({@link #isFirst}), for the kinds whose waiters take no place in line in Redis
 * ({@link Waiter#isOrderedHere()}): the thread that just released would otherwise win
 * nearly every race against the waiter it woke, which must first be scheduled, and a
 * waiter could wait out its whole wait time while the lock is granted thousands of times.
 * An attempt without a wait time still asks Redis, as {@code tryLock()} barges even into
 * a fair {@link java.util.concurrent.locks.ReentrantLock}.
 *
 * <p>
 * <b>Joining.</b> A thread is counted as joining, in the registry's atomic compute for
 * the channel, before it waits for the subscription with no monitor held, and queued once
 * it is confirmed: the sweep keeps a channel with waiters or joining threads, and
 * unsubscribes one idle for the linger time.
 *
 * <p>
 * This monitor guards the queue and the counts only; no Redis command is sent under it.
 *
 * @author redis-lock
 */
final class ChannelWaiters {

	private final ChannelSubscription subscription = new ChannelSubscription();

	private final ArrayDeque<Waiter> queue = new ArrayDeque<>();

	/** Threads waiting for the subscription before they queue. */
	private int joining;

	private long idleSince = System.nanoTime();

	ChannelSubscription subscription() {
		return this.subscription;
	}

	synchronized void startJoining() {
		this.joining++;
	}

	synchronized void join(Waiter waiter) {
		this.joining--;
		this.queue.addLast(waiter);
	}

	synchronized void abandonJoining() {
		this.joining--;
		if (this.queue.isEmpty()) {
			this.idleSince = System.nanoTime();
		}
	}

	/**
	 * Remove a waiter, passing on a signal it did not use, or its turn when it was first
	 * in this JVM's line and leaves without the lock: the next waiter then asks Redis
	 * rather than sleep on. One that leaves holding the lock passes no turn: its release
	 * wakes the next.
	 * @param granted whether the waiter leaves holding the lock
	 */
	synchronized void remove(Waiter waiter, boolean granted) {
		boolean wasFirst = waiter.isOrderedHere() && firstOrderedHere() == waiter;
		this.queue.remove(waiter);
		if (this.queue.isEmpty()) {
			this.idleSince = System.nanoTime();
		}
		if (waiter.isSignalled() || (wasFirst && !granted)) {
			signalOne();
		}
	}

	/**
	 * Whether a waiter ordered in this JVM is queued here, ahead of a new arrival, which
	 * then queues behind it rather than ask Redis.
	 */
	synchronized boolean hasQueued() {
		return firstOrderedHere() != null;
	}

	/**
	 * Whether the given waiter is the first of those ordered in this JVM, whose turn it
	 * is to ask Redis without being woken.
	 */
	synchronized boolean isFirst(Waiter waiter) {
		return firstOrderedHere() == waiter;
	}

	private @Nullable Waiter firstOrderedHere() {
		for (Waiter waiter : this.queue) {
			if (waiter.isOrderedHere()) {
				return waiter;
			}
		}
		return null;
	}

	/**
	 * Whether the first waiter in this JVM's line takes a renewed grant passed by a
	 * releasing holder ({@link HandOver}).
	 */
	synchronized boolean firstTakesHandOver() {
		Waiter first = firstOrderedHere();
		return first != null && first.takesHandOver();
	}

	/**
	 * Pass a grant to the first waiter in this JVM's line, if it takes one, and wake it.
	 * @param successor makes and records the waiter's hold, or returns {@code null} when
	 * the grant may not pass after all
	 * @return whether the waiter was given the grant
	 */
	synchronized boolean passTo(Function<Waiter, @Nullable LockHold> successor) {
		Waiter first = firstOrderedHere();
		if (first == null || !first.takesHandOver()) {
			return false;
		}
		LockHold next = successor.apply(first);
		if (next == null) {
			return false;
		}
		first.handOver(next);
		first.signal();
		return true;
	}

	/** Wake the first waiter not yet woken. */
	synchronized void signalOne() {
		for (Waiter waiter : this.queue) {
			if (!waiter.isSignalled()) {
				waiter.signal();
				return;
			}
		}
	}

	/** Wake the waiter that asks under the given owner token, if it is queued here. */
	synchronized void signalOwner(String owner) {
		for (Waiter waiter : this.queue) {
			if (waiter.owner().equals(owner)) {
				waiter.signal();
				return;
			}
		}
	}

	synchronized void signalAll() {
		this.queue.forEach(Waiter::signal);
	}

	synchronized int size() {
		return this.queue.size();
	}

	synchronized int sleepingCount() {
		int count = 0;
		for (Waiter waiter : this.queue) {
			if (waiter.isSleeping()) {
				count++;
			}
		}
		return count;
	}

	synchronized boolean isIdleSince(long time) {
		return this.queue.isEmpty() && this.joining == 0 && this.idleSince - time <= 0;
	}

}
