package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * A thread waiting for a lock, or a pending acquisition ({@link PendingAcquisition}),
 * queued in its channel's {@link LocalLock}.
 *
 * <p>
 * A signal is a flag plus a wake-up, so that one that arrives before the thread parks is
 * not lost; it is used up when {@link #await} returns, or, for a pending acquisition,
 * whose wake-up only schedules a round (signals come under the lock's monitor), as the
 * round starts. A hold passed by a releasing holder ({@link HandOver}) is given only
 * under the lock's monitor while the waiter is queued; a waiter leaves the queue under
 * that monitor before it takes what it was given, so a hold passed at the last moment is
 * released by the leaving waiter, never dropped.
 *
 * @author redis-lock
 */
final class Waiter {

	/** The waiting thread, or {@code null} for a pending acquisition. */
	private final @Nullable Thread thread;

	/** Unparks the thread, or schedules the pending acquisition's next round. */
	private final Runnable wakeUp;

	/** The owner token the waiter asks under, which a fair lock's wake-up names. */
	private final String owner;

	/** Whether a renewed grant may pass to this waiter from a releasing holder. */
	private final boolean takesHandOver;

	/** Whether its thread may re-enter a hold passed to it. */
	private final boolean reentrant;

	private final AtomicReference<@Nullable LockHold> handedOver = new AtomicReference<>();

	/** Whether it takes its turn in this JVM's arrival order ({@link LocalLock}). */
	private final boolean orderedHere;

	private volatile boolean signalled;

	/** Whether it sleeps now, for diagnostics. */
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
	 * A waiter without a thread, for a pending acquisition, whose hold no thread
	 * re-enters.
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
	 * Start a pending acquisition's round: awake, the signal used up (one that comes
	 * later calls for another round).
	 * @return whether it was signalled
	 */
	boolean startRound() {
		this.sleeping = false;
		boolean signalled = this.signalled;
		this.signalled = false;
		return signalled;
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
	 * The waiters of one {@link LocalLock} in arrival order, and the threads about to
	 * join them; guarded by that lock, whose design note states the rules it keeps.
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

		/** See {@link LocalLock#remove}. */
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

		/** The first waiter of those that take their turn in this JVM's order. */
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
			return (this.queue != null) ? (int) this.queue.stream().filter(Waiter::isSleeping).count() : 0;
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
