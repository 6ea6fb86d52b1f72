package io.github.redislock.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Everything this JVM knows of one lock: its holds, its waiters in arrival order, whether
 * it yields the lock to other JVMs, and its release channel's subscription. One per
 * release channel, so one per Redis lock state: exclusive and fair locks of a name share
 * it, as they share their key; both sides of a read/write lock share another.
 *
 * <h2>Design notes</h2>
 *
 * These rules keep a lock's promises within this JVM, as Redis keeps them between JVMs;
 * the fast path adds its own (see {@link HandOver}'s design note).
 * <ul>
 * <li><b>A hold is replaced only by what follows it.</b> A grant from Redis takes the
 * place of any earlier hold of its {@link LockHold.Key} (Redis says that grant ended); a
 * hold passed from another thread only if the hold it follows is still in place
 * ({@link #passTo}); a release removes its own hold only. So a late pass never replaces a
 * newer grant, and a late release never removes one. Two requests share a hold only where
 * they share Redis state.</li>
 * <li><b>One wake-up per release.</b> A release signals the first waiter not yet
 * signalled, whose own release wakes the next. A waiter that leaves with a signal it did
 * not use (timed out, interrupted, or won by its own try) passes it on, so no release is
 * swallowed. A fair lock's release names the waiter next in its queue, and a read/write
 * lock's wakes every waiter, as readers may get in together
 * ({@link ReleaseSubscriptions.WakeUp}; {@code FairLockTests}).</li>
 * <li><b>No barging within a JVM.</b> For kinds whose waiters take no place in line in
 * Redis ({@link Waiter#isOrderedHere()}), a thread that may wait while another of this
 * JVM holds or waits for the lock queues behind them without asking Redis, and a queued
 * waiter asks only when first or woken ({@link #sleepBeforeAsking}): the thread that just
 * released would otherwise win nearly every race against the waiter it woke. An attempt
 * without a wait time still asks, as {@code tryLock()} barges even into a fair
 * {@link java.util.concurrent.locks.ReentrantLock} ({@code LockBargingTests}).</li>
 * <li><b>A turn is never lost.</b> The first waiter in line that leaves without the lock
 * passes its turn to the next, which then asks Redis.</li>
 * <li><b>Other JVMs get their turn.</b> A thread that released the lock while another JVM
 * waited for it makes this JVM leave the lock alone until a release by another JVM
 * arrives, or for a bounded time ({@link #yieldFor}; {@code LockHandOverTests},
 * {@code LockScriptsTests}).</li>
 * </ul>
 * This monitor guards the holds, the queue and the counts; no Redis command is sent and
 * no waiter's callback but its wake-up runs under it. {@link LocalLocks} drops the entry
 * at the last release when nothing else needs it ({@link #isUnused}), and the periodic
 * sweep once its channel is unsubscribed and its yield ended.
 *
 * @author redis-lock
 */
final class LocalLock {

	private final ChannelSubscription subscription = new ChannelSubscription();

	/** Made at the first hold: a lock only waited for has none. */
	private @Nullable Map<LockHold.Key, LockHold> holds;

	private final Waiter.Line line = new Waiter.Line();

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
	 * The lock's hold if it excludes the caller (a thread, or {@code null} for a pending
	 * acquisition): held, not released, by another owner of this JVM; none for a read
	 * lock.
	 */
	private @Nullable LockHold excluding(LockKind kind, String name, @Nullable Thread caller) {
		LockHold hold = hold(kind.holdKey(name, null));
		boolean another = hold != null && (caller == null || hold.ownerThread() != caller);
		return (another && !hold.isReleased() && hold.isHeld()) ? hold : null;
	}

	/**
	 * Whether an acquisition that may wait skips its first attempt: for a kind whose
	 * waiters take no place in line in Redis, another owner of this JVM holds the lock or
	 * waits ahead; or this JVM yields the lock to other JVMs.
	 */
	synchronized boolean skipsFirstAttempt(LockKind kind, String name, @Nullable Thread caller) {
		if (!kind.queues() && (excluding(kind, name, caller) != null || this.line.first() != null)) {
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
		if (!woken && waiter.isOrderedHere() && this.line.first() != waiter) {
			return Long.MAX_VALUE;
		}
		LockHold holder = (!woken && waiter.isOrderedHere()) ? excluding(kind, name, caller) : null;
		if (holder != null) {
			return Math.max(1, holder.lease().expiresAtNanos() - System.nanoTime());
		}
		long yielding = kind.yields() ? yieldingNanos() : 0;
		return Math.max(yielding, 0);
	}

	synchronized void startJoining() {
		this.line.startJoining();
	}

	synchronized void join(Waiter waiter) {
		this.line.join(waiter);
	}

	synchronized void abandonJoining() {
		this.line.abandonJoining();
	}

	/**
	 * Remove a waiter, passing on a signal it did not use, or its turn when it was first
	 * in line and leaves without the lock ({@code granted} false; else its release wakes
	 * the next).
	 * @return a hold passed to the waiter as it left, which the caller releases
	 */
	@Nullable LockHold remove(Waiter waiter, boolean granted) {
		synchronized (this) {
			this.line.remove(waiter, granted);
		}
		return waiter.takeHandOver();
	}

	/** Whether the first waiter in this JVM's line takes a passed grant. */
	synchronized boolean firstTakesHandOver() {
		Waiter first = this.line.first();
		return first != null && first.takesHandOver();
	}

	/**
	 * Pass a released hold's grant to the first waiter in line, if it takes one, and wake
	 * it; only while the released hold is still in place, as a grant from Redis in
	 * between means the grant being passed had ended.
	 * @param successor makes the waiter's hold, or returns {@code null} when the grant
	 * may not pass after all
	 * @return whether the waiter was given the grant
	 */
	synchronized boolean passTo(LockHold released, Function<Waiter, @Nullable LockHold> successor) {
		Waiter first = this.line.first();
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

	synchronized void signalOne() {
		this.line.signalOne();
	}

	synchronized void signalOwner(String owner) {
		this.line.signalOwner(owner);
	}

	synchronized void signalAll() {
		this.line.signalAll();
	}

	synchronized int waiterCount() {
		return this.line.size();
	}

	synchronized int sleepingCount() {
		return this.line.sleepingCount();
	}

	/**
	 * How long this JVM still yields the lock to other JVMs; 0 or less when it does not.
	 */
	synchronized long yieldingNanos() {
		return (this.yieldUntil != 0) ? this.yieldUntil - System.nanoTime() : 0;
	}

	/**
	 * Yield the lock to other JVMs for the given time at most: a thread that releases and
	 * at once asks again would nearly always beat a waiter of another JVM, which must
	 * first receive the release message. The acquire script flags a grant when it refuses
	 * a thread of another JVM, the release script reports the flag, and a release by
	 * another JVM ends the yield ({@link #endYield}).
	 */
	synchronized void yieldFor(long nanos) {
		this.yieldUntil = System.nanoTime() + nanos;
		if (this.yieldUntil == 0) {
			this.yieldUntil = 1;
		}
	}

	synchronized void endYield() {
		this.yieldUntil = 0;
	}

	/**
	 * Whether nothing needs the entry: no hold, waiter, joining thread, yield or
	 * subscription.
	 */
	synchronized boolean isUnused() {
		return holdCount() == 0 && this.line.isEmpty() && yieldingNanos() <= 0 && this.subscription.isNeverAsked();
	}

	/** Whether it has had no waiter nor joining thread since then: it may unsubscribe. */
	synchronized boolean isIdleSince(long time) {
		return this.line.isIdleSince(time);
	}

}
