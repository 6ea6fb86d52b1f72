package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockMode;

/**
 * Everything this JVM knows of one lock: its holds, its waiters in arrival order, whether
 * it yields the lock to other JVMs, and its release channel's subscription. One per
 * release channel, so one per Redis lock state (exclusive and fair locks of a name share
 * one, as they share their key).
 *
 * <h2>Design notes</h2>
 *
 * These rules keep a lock's promises within this JVM, as Redis keeps them between JVMs;
 * the fast path adds its own (see {@link HandOver}'s design note).
 * <ul>
 * <li><b>A hold is replaced only by what follows it.</b> A grant from Redis replaces any
 * earlier hold of its {@link LockHold.Key} (Redis says that grant ended); a hold passed
 * from another thread only while the hold it follows is in place ({@link #passTo}); a
 * release removes its own hold only. So a late pass or release never undoes a newer
 * grant.</li>
 * <li><b>One wake-up per release.</b> A release signals the first waiter not yet
 * signalled, whose own release wakes the next. A waiter that leaves with a signal it did
 * not use passes it on, so no release is swallowed. A fair lock's release names the
 * waiter next in its queue, a read/write lock's wakes every waiter, as readers may get in
 * together ({@link ReleaseSubscriptions.WakeUp}; {@code FairLockTests}).</li>
 * <li><b>No barging within a JVM.</b> For kinds whose waiters take no place in line in
 * Redis ({@link Waiter#isOrderedHere()}), a thread that may wait while another of this
 * JVM holds or waits for the lock queues behind them without asking Redis, and a waiter
 * asks only when first or woken ({@link #sleepBeforeAsking}): the thread that just
 * released would otherwise win nearly every race against the waiter it woke. An attempt
 * without a wait time still asks, as {@code tryLock()} barges even into a fair
 * {@link java.util.concurrent.locks.ReentrantLock} ({@code LockBargingTests}).</li>
 * <li><b>A turn is never lost.</b> The first waiter that leaves without the lock passes
 * its turn to the next, which then asks Redis.</li>
 * <li><b>Other JVMs get their turn.</b> A thread that releases and at once asks again
 * would nearly always beat a waiter of another JVM, which must first hear the release. So
 * a release that the release script reports was made while another JVM waited (the
 * acquire script flagged it) makes this JVM leave the lock alone until another JVM's
 * release arrives, or for a bounded time ({@link #yieldFor}; {@code LockHandOverTests},
 * {@code LockScriptsTests}).</li>
 * </ul>
 * This monitor guards the holds, the queue and the counts; no Redis command is sent and
 * no waiter's callback but its wake-up runs under it. {@link LocalLocks} drops the entry
 * at the last release when nothing needs it ({@link #isUnused}), and the periodic sweep
 * once its channel is unsubscribed and its yield ended.
 *
 * @author redis-lock
 */
final class LocalLock {

	private final ChannelSubscription subscription = new ChannelSubscription();

	/** Made at the first hold: a lock only waited for has none. */
	private @Nullable Map<LockHold.Key, LockHold> holds;

	/** The waiters in arrival order; made at the first, as most locks never have one. */
	private @Nullable ArrayDeque<Waiter> queue;

	/** Threads waiting for the subscription before they queue. */
	private int joining;

	private long idleSince = System.nanoTime();

	/** Until when ({@link System#nanoTime()}) this JVM yields the lock; 0 for not. */
	private long yieldUntil;

	ChannelSubscription subscription() {
		return this.subscription;
	}

	synchronized @Nullable LockHold hold(LockHold.Key key) {
		return (this.holds != null) ? this.holds.get(key) : null;
	}

	/** Record a hold granted by Redis; returns the hold of its key it replaced. */
	synchronized @Nullable LockHold granted(LockHold hold) {
		if (this.holds == null) {
			this.holds = new HashMap<>(4);
		}
		return this.holds.put(hold.holdKey(), hold);
	}

	/** Forget a released hold, unless another took its place. */
	synchronized void released(LockHold hold) {
		if (this.holds != null) {
			this.holds.remove(hold.holdKey(), hold);
		}
	}

	synchronized int holdCount() {
		return (this.holds != null) ? this.holds.size() : 0;
	}

	synchronized void collectHolds(List<LockHold> into) {
		if (this.holds != null) {
			into.addAll(this.holds.values());
		}
	}

	/**
	 * The hold that excludes the caller ({@code null} for a pending acquisition): held,
	 * not released, by another owner of this JVM; none for a read lock.
	 */
	private @Nullable LockHold excluding(LockKind kind, String name, @Nullable Thread caller) {
		LockHold hold = hold(kind.holdKey(name, null));
		boolean another = hold != null && (caller == null || hold.ownerThread() != caller);
		return (another && !hold.isReleased() && hold.isHeld()) ? hold : null;
	}

	/** Whether an acquisition that may wait skips its first attempt (no barging). */
	synchronized boolean skipsFirstAttempt(LockKind kind, String name, @Nullable Thread caller) {
		if (!kind.queues() && (excluding(kind, name, caller) != null || first() != null)) {
			return true;
		}
		return kind.yields() && yieldingNanos() > 0;
	}

	/**
	 * The next step of a queued waiter, for the blocking and the non-blocking driver
	 * alike: how long it sleeps before it asks Redis, or 0 to ask now. Not woken and not
	 * first in this JVM's line: until woken. Not woken while another owner of this JVM
	 * holds the lock: until that holder's lease would end (its release wakes a waiter; a
	 * waiter woken asks, as a message from another JVM means Redis no longer counts that
	 * holder). While this JVM yields the lock: until the yield ends.
	 * @param woken whether a signal woke the waiter since its last step
	 * @param caller the waiting thread, or {@code null} for a pending acquisition
	 */
	synchronized long sleepBeforeAsking(Waiter waiter, boolean woken, LockKind kind, String name,
			@Nullable Thread caller) {
		if (!woken && waiter.isOrderedHere() && first() != waiter) {
			return Long.MAX_VALUE;
		}
		LockHold holder = (!woken && waiter.isOrderedHere()) ? excluding(kind, name, caller) : null;
		if (holder != null) {
			return Math.max(1, holder.lease().expiresAtNanos() - System.nanoTime());
		}
		return kind.yields() ? Math.max(yieldingNanos(), 0) : 0;
	}

	synchronized void startJoining() {
		this.joining++;
	}

	synchronized void join(Waiter waiter) {
		this.joining--;
		if (this.queue == null) {
			this.queue = new ArrayDeque<>(4);
		}
		this.queue.addLast(waiter);
	}

	synchronized void abandonJoining() {
		this.joining--;
		markIdleIfEmpty();
	}

	/**
	 * Remove a waiter, passing on a signal it did not use, or its turn if it was first
	 * and leaves without the lock; returns a hold passed to it as it left, for the caller
	 * to release.
	 */
	@Nullable LockHold remove(Waiter waiter, boolean granted) {
		synchronized (this) {
			boolean wasFirst = waiter.isOrderedHere() && first() == waiter;
			if (this.queue != null) {
				this.queue.remove(waiter);
			}
			markIdleIfEmpty();
			if (waiter.isSignalled() || (wasFirst && (!granted || waiter.grantWakesNext()))) {
				signalOne();
			}
		}
		return waiter.takeHandOver();
	}

	private void markIdleIfEmpty() {
		if (waiterCount() == 0) {
			this.idleSince = System.nanoTime();
		}
	}

	/** The first waiter of those that take their turn in this JVM's order. */
	private @Nullable Waiter first() {
		return firstWhere(Waiter::isOrderedHere);
	}

	private @Nullable Waiter firstWhere(Predicate<Waiter> test) {
		if (this.queue != null) {
			for (Waiter waiter : this.queue) {
				if (test.test(waiter)) {
					return waiter;
				}
			}
		}
		return null;
	}

	/** Whether the first waiter in this JVM's line takes a passed grant. */
	synchronized boolean firstTakesHandOver() {
		Waiter first = first();
		return first != null && first.takesHandOver();
	}

	/**
	 * Pass a released hold's grant to the first waiter, if it takes one, and wake it;
	 * only while the released hold is in place (a grant from Redis in between ended the
	 * grant).
	 * @param successor makes the waiter's hold, or {@code null} when the grant may not
	 * pass
	 * @return whether the waiter was given the grant
	 */
	synchronized boolean passTo(LockHold released, Function<Waiter, @Nullable LockHold> successor) {
		Waiter first = first();
		if (first == null || !first.takesHandOver() || hold(released.holdKey()) != released) {
			return false;
		}
		LockHold next = successor.apply(first);
		if (next == null) {
			return false;
		}
		released(released);
		granted(next);
		first.handOver(next);
		first.signal();
		return true;
	}

	/** Wake the first waiter not yet woken. */
	synchronized void signalOne() {
		Waiter next = firstWhere((waiter) -> !waiter.isSignalled());
		if (next != null) {
			next.signal();
		}
	}

	/** Wake the waiter that asks under the given owner token, if it is queued here. */
	synchronized void signalOwner(String owner) {
		Waiter named = firstWhere((waiter) -> waiter.owner().equals(owner));
		if (named != null) {
			named.signal();
		}
	}

	synchronized void signalAll() {
		if (this.queue != null) {
			this.queue.forEach(Waiter::signal);
		}
	}

	synchronized int waiterCount() {
		return (this.queue != null) ? this.queue.size() : 0;
	}

	/**
	 * The waiters of one mode: a channel's waiters may differ in mode, as the readers and
	 * the writers of a read/write lock share theirs.
	 */
	synchronized int waiterCount(LockMode mode) {
		return (this.queue != null) ? (int) this.queue.stream().filter((waiter) -> waiter.mode() == mode).count() : 0;
	}

	synchronized int sleepingCount() {
		return (this.queue != null) ? (int) this.queue.stream().filter(Waiter::isSleeping).count() : 0;
	}

	/** How long this JVM still yields the lock; 0 or less when it does not. */
	synchronized long yieldingNanos() {
		return (this.yieldUntil != 0) ? this.yieldUntil - System.nanoTime() : 0;
	}

	synchronized void yieldFor(long nanos) {
		this.yieldUntil = System.nanoTime() + nanos;
		if (this.yieldUntil == 0) {
			this.yieldUntil = 1;
		}
	}

	synchronized void endYield() {
		this.yieldUntil = 0;
	}

	/** Whether no hold, waiter, joining thread, yield or subscription needs it. */
	synchronized boolean isUnused() {
		return holdCount() == 0 && waiterCount() == 0 && this.joining == 0 && yieldingNanos() <= 0
				&& this.subscription.isNeverAsked();
	}

	/** Whether it has had no waiter nor joining thread since then: it may unsubscribe. */
	synchronized boolean isIdleSince(long time) {
		return waiterCount() == 0 && this.joining == 0 && this.idleSince - time <= 0;
	}

}
