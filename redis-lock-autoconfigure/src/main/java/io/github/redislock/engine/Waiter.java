package io.github.redislock.engine;

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

}
