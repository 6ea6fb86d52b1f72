package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

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
 * <b>Handing a lock over.</b> When a lock is released while a thread of this JVM waits
 * for it, the releasing thread can give it to that waiter without a round trip: the Redis
 * grant stays as it is and the waiter wakes owning it. The hand-over happens under this
 * monitor and only to a waiter still queued; a waiter that leaves with a hold it did not
 * take returns it to its caller for release, so a handed lock is never dropped.
 *
 * <p>
 * <b>Eager acquisition.</b> A waiter woken by another JVM's release may be claimed
 * instead of woken: its acquisition is sent from the thread that received the message,
 * outside this monitor, and the grant delivered only if the waiter is still queued
 * ({@link EagerAcquisition}).
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

	private final BargingWindow barging = new BargingWindow();

	/**
	 * A released hold whose lease this JVM keeps for the next local owner: the first of
	 * this JVM's threads to ask takes it, a barger or the waiter woken for it.
	 */
	private @Nullable LockHold vacant;

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
	 * Remove a waiter, passing on a signal it did not use.
	 * @return the vacant hold, if there is one, which the caller must release again: the
	 * waiter that leaves may be the one woken to take it, or the last one
	 */
	synchronized @Nullable LockHold remove(Waiter waiter) {
		this.queue.remove(waiter);
		if (this.queue.isEmpty()) {
			this.idleSince = System.nanoTime();
		}
		if (waiter.isSignalled()) {
			signalOne();
		}
		LockHold vacant = this.vacant;
		this.vacant = null;
		return vacant;
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

	/**
	 * Wake the first waiter not yet woken. One that can be acquired for eagerly is
	 * claimed instead, its acquisition sent from this thread, and its thread woken when
	 * the answer arrives, holding the grant if there is one.
	 */
	void wakeOne() {
		Waiter claimed = null;
		synchronized (this) {
			for (Waiter waiter : this.queue) {
				if (!waiter.isSignalled()) {
					if (!waiter.acquiresEagerly()) {
						waiter.signal();
						return;
					}
					waiter.claim();
					claimed = waiter;
					break;
				}
			}
		}
		if (claimed != null) {
			claimed.acquireEagerly(this);
		}
	}

	/** Give a grant to a waiter that is still queued. */
	synchronized boolean deliver(Waiter waiter, LockHold hold) {
		if (!this.queue.contains(waiter)) {
			return false;
		}
		hold.claim();
		if (waiter.deliver(hold)) {
			return true;
		}
		hold.awaitClaim();
		return false;
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

	/**
	 * Hand a lock to the first waiter that accepts a hand-over, or leave it vacant for
	 * the first thread of this JVM that asks, and wake that waiter to ask.
	 * @param released the released hold, to leave vacant if the waiter
	 * {@linkplain Waiter#mayBeBarged may be barged}; {@code null} to hand it over
	 * @param heldNanos how long the released hold lasted, or a negative number when it
	 * was not held by a thread (a vacant hold released again); sets the
	 * {@linkplain #bargingNanos() barging window}
	 * @param successor makes the hold of the chosen waiter's thread
	 * @param install records the new hold before its thread is woken; false when it could
	 * not, and then nobody is woken
	 * @return whether a waiter took the lock, or it was left vacant for one
	 */
	synchronized boolean handOff(@Nullable LockHold released, long heldNanos,
			Function<@Nullable Thread, LockHold> successor, Predicate<LockHold> install) {
		this.barging.released(heldNanos, this.queue.size());
		long starvingNanos = this.barging.nanos();
		for (Waiter waiter : this.queue) {
			if (waiter.acceptsHandoff()) {
				if (released != null && waiter.mayBeBarged(starvingNanos)) {
					this.vacant = released;
					// A napping waiter wakes by itself soon enough: a barger will most
					// likely have taken the lock again by then.
					if (!waiter.isSignalled() && !waiter.isNapping()) {
						waiter.signal();
					}
					return true;
				}
				LockHold next = successor.apply(waiter.reentrantThread());
				if (!install.test(next)) {
					return false;
				}
				waiter.handOver(next);
				waiter.signal();
				return true;
			}
		}
		return false;
	}

	/**
	 * Take the vacant hold, if there is one.
	 * @param successor makes the taker's hold of the vacant one, or {@code null} when its
	 * lease was found lost
	 * @param install records the new hold in place of the vacant one; false when it could
	 * not, as when Redis granted the lock to another owner of this JVM since the lease
	 * ended
	 * @return the taker's hold, or {@code null}; a vacant hold that could not be taken
	 * stays, to be released in Redis by the next waiter that leaves
	 */
	synchronized @Nullable LockHold takeVacant(Function<LockHold, @Nullable LockHold> successor,
			BiPredicate<LockHold, LockHold> install) {
		LockHold vacant = this.vacant;
		if (vacant == null) {
			return null;
		}
		LockHold next = successor.apply(vacant);
		if (next == null || !install.test(vacant, next)) {
			return null;
		}
		this.vacant = null;
		return next;
	}

	/** How long a waiter of this channel may be barged: {@link BargingWindow}. */
	long bargingNanos() {
		return this.barging.nanos();
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
