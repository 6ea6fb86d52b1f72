package io.github.redislock.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Everything this JVM knows of one lock: its holds, its waiters in arrival order, whether
 * this JVM yields it to other JVMs, and its release channel's subscription. One per
 * release channel, which is one per Redis lock state: exclusive and fair locks of a name
 * share it, as they share their key; both sides of a read/write lock share another. Found
 * once per call in {@link LocalLocks}.
 *
 * <h2>Design notes</h2>
 *
 * The rules below keep the promises of a lock within this JVM; Redis keeps them between
 * JVMs. Each is stated where it is enforced, and the fast path ({@link HandOver}) adds
 * its own.
 * <ul>
 * <li><b>A hold is replaced only by what follows it.</b> A grant from Redis puts its hold
 * in place of any earlier one of its {@link LockHold.Key} (Redis says the earlier grant
 * ended); a hold passed from another thread replaces the hold it follows only if that is
 * still in place ({@link #passTo}); a release removes its own hold only. So a late pass
 * never takes the place of a newer grant, and a late release never removes one. Holds are
 * found by a typed {@link LockHold.Key}: two requests share a hold only where they share
 * Redis state.</li>
 * <li><b>One wake-up per release.</b> A release signals the first waiter not yet
 * signalled; the others sleep on, and the woken waiter's own release wakes the next. A
 * waiter that leaves holding a signal it did not use (it timed out, was interrupted or
 * won the lock by its own try) passes it on, so a release is never swallowed. A fair
 * lock's release names the one waiter next in its queue, and a read/write lock's wakes
 * every waiter, since several readers may get in together
 * ({@link ReleaseSubscriptions.WakeUp}).</li>
 * <li><b>No barging within a JVM.</b> For kinds whose waiters take no place in line in
 * Redis ({@link Waiter#isOrderedHere()}), a thread that asks with a wait time while
 * another of this JVM holds the lock or waits for it queues behind them without asking
 * Redis, and a queued waiter asks only when first in line or woken
 * ({@link #sleepBeforeAsking}): the thread that just released would otherwise win nearly
 * every race against the waiter it woke. An attempt without a wait time still asks Redis,
 * as {@code tryLock()} barges even into a fair
 * {@link java.util.concurrent.locks.ReentrantLock}.</li>
 * <li><b>A turn is never lost.</b> The first waiter in line that leaves without the lock
 * passes its turn to the next, which then asks Redis rather than sleep on.</li>
 * <li><b>Other JVMs get their turn.</b> A thread that released the lock when another JVM
 * waited for it makes this JVM leave the lock alone until a release by another JVM
 * arrives, or for a bounded time ({@link #yieldFor}).</li>
 * </ul>
 * This monitor guards the holds, the queue and the counts only; no Redis command is sent
 * under it, and no waiter's callback runs under it other than its wake-up.
 *
 * <p>
 * <b>Lifetime.</b> The entry is kept while it has holds, waiters, joining threads, a
 * yield or a subscription; {@link LocalLocks} drops it at the last release when nothing
 * else needs it, and the periodic sweep once its channel is unsubscribed and its yield
 * ended.
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

	/** The hold under the given key, or {@code null}. */
	synchronized @Nullable LockHold hold(LockHold.Key key) {
		return (this.holds != null) ? this.holds.get(key) : null;
	}

	/**
	 * Record a hold granted by Redis, in the place of any other of its key.
	 * @return the hold it replaced, or {@code null}
	 */
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
	 * The lock's hold if it excludes the given caller: held, not released, and by another
	 * owner of this JVM; for a read lock none, as readers share.
	 * @param caller the calling thread, or {@code null} for a pending acquisition, which
	 * no hold belongs to
	 */
	private @Nullable LockHold excluding(LockKind kind, String name, @Nullable Thread caller) {
		LockHold hold = hold(kind.holdKey(name, null));
		boolean another = hold != null && (caller == null || hold.ownerThread() != caller);
		return (another && !hold.isReleased() && hold.isHeld()) ? hold : null;
	}

	// The next step of an acquisition

	/**
	 * Whether an acquisition that may wait skips its first attempt: another owner of this
	 * JVM holds the lock or waits for it ahead, for a kind whose waiters take no place in
	 * line in Redis; or this JVM yields the lock to other JVMs.
	 */
	boolean skipsFirstAttempt(LockKind kind, String name, @Nullable Thread caller) {
		if (!kind.queues() && (excluding(kind, name, caller) != null || hasQueued())) {
			return true;
		}
		return kind.yields() && yieldingNanos() > 0;
	}

	/**
	 * The next step of a queued waiter, for both the blocking and the non-blocking
	 * drivers: how long it sleeps before it asks Redis, or 0 when it asks now.
	 * <ul>
	 * <li>not its turn in this JVM's line, and not woken: until woken (the waiter ahead
	 * wakes it once done);</li>
	 * <li>another owner of this JVM holds the lock, and not woken: until that holder's
	 * lease would end (its release wakes a queued waiter; a waiter woken asks, since a
	 * message from another JVM means Redis no longer counts that holder);</li>
	 * <li>this JVM yields the lock to other JVMs: until the yield ends;</li>
	 * <li>else 0: ask Redis now.</li>
	 * </ul>
	 * @param woken whether a signal woke the waiter since its last step
	 * @param caller the waiting thread, or {@code null} for a pending acquisition
	 */
	long sleepBeforeAsking(Waiter waiter, boolean woken, LockKind kind, String name, @Nullable Thread caller) {
		if (!woken && waiter.isOrderedHere() && !isFirst(waiter)) {
			return Long.MAX_VALUE;
		}
		LockHold holder = (!woken && waiter.isOrderedHere()) ? excluding(kind, name, caller) : null;
		if (holder != null) {
			return Math.max(1, holder.lease().expiresAtNanos() - System.nanoTime());
		}
		long yielding = kind.yields() ? yieldingNanos() : 0;
		return Math.max(yielding, 0);
	}

	// Waiters

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
	 * in this JVM's line and leaves without the lock. One that leaves holding the lock
	 * passes no turn: its release wakes the next.
	 * @param granted whether the waiter leaves holding the lock
	 * @return a hold passed to the waiter as it left, which the caller releases
	 */
	@Nullable LockHold remove(Waiter waiter, boolean granted) {
		synchronized (this) {
			this.line.remove(waiter, granted);
		}
		return waiter.takeHandOver();
	}

	/** Whether a waiter ordered in this JVM is queued, ahead of a new arrival. */
	synchronized boolean hasQueued() {
		return this.line.first() != null;
	}

	/** Whether the waiter is the first of those ordered in this JVM. */
	synchronized boolean isFirst(Waiter waiter) {
		return this.line.first() == waiter;
	}

	/** Whether the first waiter in this JVM's line takes a passed grant. */
	synchronized boolean firstTakesHandOver() {
		Waiter first = this.line.first();
		return first != null && first.takesHandOver();
	}

	/**
	 * Pass a released hold's grant to the first waiter in this JVM's line, if it takes
	 * one, and wake it. The waiter's hold takes the released one's place only if that is
	 * still in place: a grant from Redis in between means the grant being passed had
	 * ended.
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

	/** Wake the first waiter not yet woken. */
	synchronized void signalOne() {
		this.line.signalOne();
	}

	/** Wake the waiter that asks under the given owner token, if it is queued here. */
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

	// Yielding to other JVMs

	/**
	 * How long this JVM still yields the lock to other JVMs; 0 or less when it does not.
	 */
	synchronized long yieldingNanos() {
		return (this.yieldUntil != 0) ? this.yieldUntil - System.nanoTime() : 0;
	}

	/**
	 * Yield the lock to other JVMs for the given time at most: a thread that releases a
	 * lock and at once asks again would nearly always beat a waiter of another JVM, which
	 * must first receive the release message. The acquire script flags a grant when it
	 * refuses a thread of another JVM, and the release script reports the flag; a release
	 * by another JVM ends the yield ({@link #endYield}).
	 */
	synchronized void yieldFor(long nanos) {
		this.yieldUntil = System.nanoTime() + nanos;
		if (this.yieldUntil == 0) {
			this.yieldUntil = 1;
		}
	}

	/** Another JVM had its turn: this one yields no longer. */
	synchronized void endYield() {
		this.yieldUntil = 0;
	}

	/**
	 * Whether nothing needs the entry any more: no hold, no waiter, no joining thread, no
	 * yield, and no subscription that may need an unsubscribe.
	 */
	synchronized boolean isUnused() {
		return holdCount() == 0 && this.line.isEmpty() && yieldingNanos() <= 0 && this.subscription.isNeverAsked();
	}

	/**
	 * Whether the entry has had no waiter and no joining thread since the given time: its
	 * channel may be unsubscribed.
	 */
	synchronized boolean isIdleSince(long time) {
		return this.line.isIdleSince(time);
	}

}
