package io.github.redislock.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.ScriptBatches.Answer;

/**
 * One renewal sent, and what its answer found.
 *
 * <p>
 * States: <em>counted</em> against the watchdog's window when sent, <em>stalled</em> when
 * the tick stops counting it (it waits for a stalled server), <em>answered</em> when the
 * answer arrives, from either. Whichever of the answer and the tick leaves the counted
 * state first gives its place in the window back, once. The answer's fields are written
 * on the client's thread before its state is set, and read on the tick thread after
 * {@link #isAnswered()}.
 *
 * @author redis-lock
 */
final class RenewalAttempt implements Answer<Long> {

	private static final int COUNTED = 0;

	private static final int STALLED = 1;

	private static final int ANSWERED = 2;

	private static final AtomicIntegerFieldUpdater<RenewalAttempt> STATE = AtomicIntegerFieldUpdater
		.newUpdater(RenewalAttempt.class, "state");

	private final LeaseRenewal renewal;

	private final long sentAt;

	/** The renewals counted against the window, this one among them until it leaves. */
	private final AtomicInteger inFlight;

	private volatile int state = COUNTED;

	/** Whether the answer settled the renewal, rather than came after its deadline. */
	private boolean awaited;

	private boolean renewed;

	private @Nullable Throwable failure;

	RenewalAttempt(LeaseRenewal renewal, long sentAt, AtomicInteger inFlight) {
		this.renewal = renewal;
		this.sentAt = sentAt;
		this.inFlight = inFlight;
	}

	/** Record the answer; runs on the Redis client's thread. */
	@Override
	public void answered(@Nullable Long reply, @Nullable Throwable failure) {
		this.awaited = this.renewal.settle(this.sentAt);
		if (failure != null) {
			this.failure = failure;
		}
		else if (LockScripts.isRenewed(reply)) {
			// Late or not, it is true: Redis renewed the lease after it was sent.
			this.renewal.lease().renewed(this.sentAt);
			this.renewed = true;
		}
		if (STATE.getAndSet(this, ANSWERED) == COUNTED) {
			this.inFlight.decrementAndGet();
		}
	}

	/** Stop counting it against the window; true when it still did. */
	boolean stall() {
		if (STATE.compareAndSet(this, COUNTED, STALLED)) {
			this.inFlight.decrementAndGet();
			return true;
		}
		return false;
	}

	boolean isAnswered() {
		return this.state == ANSWERED;
	}

	LeaseRenewal renewal() {
		return this.renewal;
	}

	long sentAt() {
		return this.sentAt;
	}

	/** Whether the answer settled the renewal, rather than came after its deadline. */
	boolean isAwaited() {
		return this.awaited;
	}

	/** Whether Redis said the lease was renewed. */
	boolean isRenewed() {
		return this.renewed;
	}

	/** How the renewal failed, or {@code null}. */
	@Nullable Throwable failure() {
		return this.failure;
	}

}
