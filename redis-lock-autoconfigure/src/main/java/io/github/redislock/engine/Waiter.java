package io.github.redislock.engine;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockMode;

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

	private final Acquisition acquisition;

	private final AtomicReference<@Nullable LockHold> handedOver = new AtomicReference<>();

	private volatile boolean signalled;

	private volatile boolean sleeping;

	private Waiter(@Nullable Thread thread, Runnable wakeUp, Acquisition acquisition) {
		this.thread = thread;
		this.wakeUp = wakeUp;
		this.acquisition = acquisition;
	}

	/** The calling thread, waiting for the acquisition. */
	static Waiter ofThisThread(Acquisition acquisition) {
		Thread thread = Thread.currentThread();
		return new Waiter(thread, () -> LockSupport.unpark(thread), acquisition);
	}

	/** A threadless waiter, whose wake-up schedules a pending acquisition's round. */
	static Waiter pending(Acquisition acquisition, Runnable wakeUp) {
		return new Waiter(null, wakeUp, acquisition);
	}

	/** Whether a grant may pass to this waiter now: it asked for a renewed lease. */
	boolean takesHandOver() {
		return this.acquisition.kind().passes() && this.acquisition.renewed() && this.handedOver.get() == null;
	}

	/** The thread that would re-enter a hold passed to this waiter, if any may. */
	@Nullable Thread reentrantThread() {
		return this.acquisition.reentrant() ? this.thread : null;
	}

	/** Pass a hold to this waiter, while it {@linkplain #takesHandOver() takes one}. */
	void handOver(LockHold hold) {
		this.handedOver.set(hold);
	}

	/** The hold passed to this waiter, if any, now owned by the caller. */
	@Nullable LockHold takeHandOver() {
		return this.handedOver.getAndSet(null);
	}

	/** The owner token the waiter asks under, which a fair lock's wake-up names. */
	String owner() {
		return this.acquisition.owner();
	}

	/** The mode it waits for, as diagnostics report it. */
	LockMode mode() {
		return this.acquisition.kind().mode();
	}

	/** Whether its grant wakes the next waiter ({@link LockKind#grantWakesNext()}). */
	boolean grantWakesNext() {
		return this.acquisition.kind().grantWakesNext();
	}

	/** Whether it takes its turn in this JVM's order ({@link LocalLock}). */
	boolean isOrderedHere() {
		return !this.acquisition.kind().queues();
	}

	void signal() {
		this.signalled = true;
		this.wakeUp.run();
	}

	/** Start a pending acquisition's round, using up the signal; true if signalled. */
	boolean startRound() {
		this.sleeping = false;
		return takeSignal();
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
		return takeSignal();
	}

	private boolean takeSignal() {
		boolean signalled = this.signalled;
		this.signalled = false;
		return signalled;
	}

	@Override
	public String toString() {
		return "Waiter[" + ((this.thread != null) ? this.thread.getName() : "pending") + ", " + owner() + "]";
	}

}
