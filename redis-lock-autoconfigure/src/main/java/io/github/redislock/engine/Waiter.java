package io.github.redislock.engine;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * A thread waiting for a lock, or a pending non-blocking acquisition
 * ({@link PendingAcquisition}), queued in its channel's {@link ChannelWaiters}.
 *
 * <h2>Design notes</h2>
 *
 * <b>States.</b> A waiter is <em>asleep</em>, <em>signalled</em> (a flag plus an unpark,
 * so that a signal that arrives before the thread parks is not lost, and used up when
 * {@link #await} returns), or <em>claimed</em> (signalled without an unpark: the thread
 * that received a release sends its acquisition, and wakes it with the answer). Apart
 * from that it may hold a hold handed over to it, or granted for it eagerly, until its
 * thread {@linkplain #takeHandoff() takes} it.
 *
 * <p>
 * <b>Races.</b> A hold is given only under the channel's monitor and only while the
 * waiter is queued; the waiter leaves the queue, also under that monitor, before it takes
 * what it was given, so a hold given at the last moment is taken by the leaving thread
 * and released, never dropped. A hand-over goes to a waiter that has none yet; an eager
 * grant only to one that was handed none meanwhile.
 *
 * <p>
 * <b>Without a thread.</b> A pending acquisition has no thread to park: a signal runs its
 * wake-up instead, which schedules its next round and returns at once (signals come under
 * the channel's monitor), and the round uses the signal up as it starts, as a thread does
 * when {@link #await} returns.
 *
 * @author redis-lock
 */
final class Waiter {

	/** The waiting thread, or {@code null} for a pending acquisition. */
	private final @Nullable Thread thread;

	/** Unparks the thread, or schedules the pending acquisition's next round. */
	private final Runnable wakeUp;

	private final boolean acceptsHandoff;

	/** Whether a hold handed to this waiter may be re-entered by its thread. */
	private final boolean reentrant;

	/** The owner token the waiter asks under, which a targeted wake-up names. */
	private final String owner;

	/**
	 * Sends the waiter's acquisition from the thread that received a release, or
	 * {@code null} when the waiter must try by itself.
	 */
	private final @Nullable EagerAcquisition eager;

	private final AtomicReference<@Nullable LockHold> handoff = new AtomicReference<>();

	/**
	 * When the waiter was created, as it started to wait: how long it waits decides
	 * whether it may be barged.
	 */
	private final long waitingSince = System.nanoTime();

	private volatile boolean signalled;

	/**
	 * Whether the thread sleeps, after another thread of this JVM barged ahead of it,
	 * only until it would be handed the lock: a lock left vacant meanwhile need not wake
	 * it.
	 */
	private volatile boolean napping;

	/** Whether the thread is parked in {@link #await} now, for diagnostics. */
	private volatile boolean sleeping;

	Waiter(Thread thread, boolean acceptsHandoff, boolean reentrant, String owner, @Nullable EagerAcquisition eager) {
		this(thread, () -> LockSupport.unpark(thread), acceptsHandoff, reentrant, owner, eager);
	}

	private Waiter(@Nullable Thread thread, Runnable wakeUp, boolean acceptsHandoff, boolean reentrant, String owner,
			@Nullable EagerAcquisition eager) {
		this.thread = thread;
		this.wakeUp = wakeUp;
		this.acceptsHandoff = acceptsHandoff;
		this.reentrant = reentrant;
		this.owner = owner;
		this.eager = eager;
	}

	/**
	 * A waiter without a thread, for a pending acquisition: its lock belongs to the
	 * acquisition, so no thread re-enters a hold handed to it.
	 * @param wakeUp schedules the acquisition's next round, without waiting for it
	 */
	static Waiter pending(Runnable wakeUp, boolean acceptsHandoff, String owner, @Nullable EagerAcquisition eager) {
		return new Waiter(null, wakeUp, acceptsHandoff, false, owner, eager);
	}

	String owner() {
		return this.owner;
	}

	/** Whether a hold may be handed to this waiter now. */
	boolean acceptsHandoff() {
		return this.acceptsHandoff && this.handoff.get() == null;
	}

	/** The thread that would re-enter a hold handed to this waiter, if any may. */
	@Nullable Thread reentrantThread() {
		return this.reentrant ? this.thread : null;
	}

	/**
	 * Whether a lock released for this waiter may be left vacant for any thread of this
	 * JVM to take ({@link ChannelWaiters#handOff}): not once the waiter has waited for
	 * the given time, and never for a pending acquisition, whose rounds run on other
	 * threads and would rarely win the race.
	 */
	boolean mayBeBarged(long starvingNanos) {
		return this.thread != null && System.nanoTime() - this.waitingSince < starvingNanos;
	}

	/**
	 * How long until this waiter has waited the given time, after which it is no longer
	 * barged; 0 or less once it has.
	 */
	long nanosUntilStarving(long starvingNanos) {
		return this.waitingSince + starvingNanos - System.nanoTime();
	}

	/** Record whether the thread naps: sleeps at most until it is no longer barged. */
	void napping(boolean napping) {
		this.napping = napping;
	}

	boolean isNapping() {
		return this.napping;
	}

	/** Whether the thread that wakes this waiter sends its acquisition. */
	boolean acquiresEagerly() {
		return this.eager != null;
	}

	/** Mark the waiter as woken without waking its thread yet. */
	void claim() {
		this.signalled = true;
	}

	/**
	 * Hand the waiter a hold released by another thread of this JVM; only while it
	 * {@linkplain #acceptsHandoff() accepts one}.
	 */
	void handOver(LockHold hold) {
		this.handoff.set(hold);
	}

	/**
	 * Give the waiter a hold granted for it eagerly.
	 * @return false when it was handed one already
	 */
	boolean deliver(LockHold hold) {
		return this.handoff.compareAndSet(null, hold);
	}

	/** The hold handed to this waiter, if any, now owned by the caller. */
	@Nullable LockHold takeHandoff() {
		return this.handoff.getAndSet(null);
	}

	/**
	 * Send the acquisition of a claimed waiter, and wake it when answered, holding the
	 * grant if there is one and it is still queued in the given channel.
	 */
	void acquireEagerly(ChannelWaiters waiters) {
		EagerAcquisition acquisition = this.eager;
		if (acquisition == null) {
			signal();
			return;
		}
		acquisition.start(this.thread).whenComplete((hold, ex) -> {
			if (hold != null && !waiters.deliver(this, hold)) {
				acquisition.undelivered(hold);
			}
			signal();
		});
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
	 * @throws InterruptedException when interrupted; the interrupt status is cleared
	 */
	void await(long nanos) throws InterruptedException {
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
		this.signalled = false;
	}

}
