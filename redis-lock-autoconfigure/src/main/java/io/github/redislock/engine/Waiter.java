package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * A thread waiting for a lock, or a pending non-blocking acquisition
 * ({@link PendingAcquisition}), queued in its channel's {@link LocalLock}.
 *
 * <p>
 * A waiter is <em>asleep</em> or <em>signalled</em>: a flag plus an unpark, so that a
 * signal that arrives before the thread parks is not lost, used up when {@link #await}
 * returns. It may also hold a hold passed to it by a releasing holder ({@link HandOver}),
 * given only under the channel's monitor while it is queued, until its thread takes it; a
 * waiter leaves the queue, under that monitor, before it takes what it was given, so a
 * hold passed at the last moment is taken by the leaving thread and released, never
 * dropped. A pending acquisition has no thread to park: a signal runs its wake-up
 * instead, which schedules its next round and returns at once (signals come under the
 * channel's monitor), and the round uses the signal up as it starts, as a thread does
 * when {@link #await} returns. The waiters of a lock queue in its {@link Line}.
 *
 * @author redis-lock
 */
final class Waiter {

	/** The waiting thread, or {@code null} for a pending acquisition. */
	private final @Nullable Thread thread;

	/** Unparks the thread, or schedules the pending acquisition's next round. */
	private final Runnable wakeUp;

	/** The owner token the waiter asks under, which a targeted wake-up names. */
	private final String owner;

	/** Whether a renewed grant may pass to this waiter from a releasing holder. */
	private final boolean takesHandOver;

	/** Whether a hold passed to this waiter may be re-entered by its thread. */
	private final boolean reentrant;

	/** A hold passed to this waiter, until its thread takes it. */
	private final AtomicReference<@Nullable LockHold> handedOver = new AtomicReference<>();

	/**
	 * Whether the waiter takes its turn in this JVM's arrival order, for a kind whose
	 * waiters take no place in line in Redis ({@link LocalLock}).
	 */
	private final boolean orderedHere;

	private volatile boolean signalled;

	/** Whether the thread is parked in {@link #await} now, for diagnostics. */
	private volatile boolean sleeping;

	Waiter(Thread thread, String owner, boolean orderedHere, boolean takesHandOver, boolean reentrant) {
		this(thread, () -> LockSupport.unpark(thread), owner, orderedHere, takesHandOver, reentrant);
	}

	private Waiter(@Nullable Thread thread, Runnable wakeUp, String owner, boolean orderedHere, boolean takesHandOver,
			boolean reentrant) {
		this.thread = thread;
		this.wakeUp = wakeUp;
		this.owner = owner;
		this.orderedHere = orderedHere;
		this.takesHandOver = takesHandOver;
		this.reentrant = reentrant;
	}

	/**
	 * A waiter without a thread, for a pending acquisition: its lock belongs to the
	 * acquisition, so no thread re-enters a hold passed to it.
	 * @param wakeUp schedules the acquisition's next round, without waiting for it
	 */
	static Waiter pending(Runnable wakeUp, String owner, boolean orderedHere, boolean takesHandOver) {
		return new Waiter(null, wakeUp, owner, orderedHere, takesHandOver, false);
	}

	/** Whether a renewed grant may pass to this waiter now. */
	boolean takesHandOver() {
		return this.takesHandOver && this.handedOver.get() == null;
	}

	/** The thread that would re-enter a hold passed to this waiter, if any may. */
	@Nullable Thread reentrantThread() {
		return this.reentrant ? this.thread : null;
	}

	/**
	 * Pass a hold to this waiter; only while it {@linkplain #takesHandOver() takes one}.
	 */
	void handOver(LockHold hold) {
		this.handedOver.set(hold);
	}

	/** The hold passed to this waiter, if any, now owned by the caller. */
	@Nullable LockHold takeHandOver() {
		return this.handedOver.getAndSet(null);
	}

	String owner() {
		return this.owner;
	}

	boolean isOrderedHere() {
		return this.orderedHere;
	}

	void signal() {
		this.signalled = true;
		this.wakeUp.run();
	}

	/**
	 * Use up the signal, as a pending acquisition's round starts: a signal that comes
	 * later calls for another round.
	 */
	void consumeSignal() {
		this.signalled = false;
	}

	/** Record whether a pending acquisition sleeps until a signal or its timer. */
	void asleep(boolean sleeping) {
		this.sleeping = sleeping;
	}

	boolean isSignalled() {
		return this.signalled;
	}

	boolean isSleeping() {
		return this.sleeping;
	}

	/**
	 * Sleep until signalled or the time is up, using up the signal.
	 * @return whether it was signalled
	 * @throws InterruptedException when interrupted; the interrupt status is cleared
	 */
	boolean await(long nanos) throws InterruptedException {
		long deadline = System.nanoTime() + nanos;
		while (!this.signalled) {
			long remaining = deadline - System.nanoTime();
			if (remaining <= 0) {
				break;
			}
			this.sleeping = true;
			LockSupport.parkNanos(this, remaining);
			this.sleeping = false;
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
		}
		boolean signalled = this.signalled;
		this.signalled = false;
		return signalled;
	}

	@Override
	public String toString() {
		return "Waiter[" + ((this.thread != null) ? this.thread.getName() : "pending") + ", " + this.owner + "]";
	}

	/**
	 * The waiters of one {@link LocalLock}, in arrival order, and the threads about to
	 * join them. Not thread-safe: its lock guards it, and states the rules it keeps.
	 */
	static final class Line {

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
		 * Remove a waiter, passing on a signal it did not use, or its turn when it was
		 * first in line and leaves without the lock.
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

		/**
		 * The first waiter of those that take their turn in this JVM's order, or none.
		 */
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

		/**
		 * Wake the waiter that asks under the given owner token, if it is queued here.
		 */
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

}
