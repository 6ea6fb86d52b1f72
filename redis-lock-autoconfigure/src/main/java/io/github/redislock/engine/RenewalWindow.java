package io.github.redislock.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisCommandTimeoutException;

/**
 * The watchdog's renewals in flight: how many count against its window, and which wait
 * for an answer, oldest first. The tick thread's own, apart from the count, which answers
 * lower on the client's thread.
 *
 * <p>
 * A renewal counts against the window of {@value #WINDOW} from its send until it is
 * answered or a stall has passed, whichever is first: one waiting longer waits for a
 * stalled server, and must not hold up the renewals of leases on healthy ones. Answers
 * are taken in the order the renewals were sent, so an answer waits at most a stall
 * behind an earlier one still unanswered, which is well before its lease is due again. A
 * stalled renewal is settled by its answer, by its deadline (the engine's own,
 * {@link LockWatchdog#answerDeadlineNanos()}), by its lease being released, or by its
 * lease running out, whichever comes first.
 *
 * <p>
 * The window counts leases, not script calls: a lease renewed in a chunk with others
 * ({@link RenewalChunks}) counts as one, as when renewed alone, since what Redis spends
 * on renewals, and how long a lock call waits behind them, grows with the leases renewed
 * more than with the calls. The leases of a chunk are sent, answered and settled
 * together.
 *
 * @author redis-lock
 */
final class RenewalWindow {

	/**
	 * Renewals in flight at most, not counting those that wait for a stalled server: few
	 * enough that a lock call sent meanwhile waits little behind them.
	 */
	static final int WINDOW = 1000;

	/** How long a renewal counts against the window at most. */
	private final long stallNanos;

	/** How long a renewal may go unanswered before it counts as failed. */
	private final long deadlineNanos;

	/** Renewals that count against the window now. */
	private final AtomicInteger inFlight = new AtomicInteger();

	/** Renewals sent less than a stall ago, oldest first. */
	private final ArrayDeque<RenewalAttempt> young = new ArrayDeque<>();

	/** Renewals unanswered for longer than a stall. */
	private final ArrayDeque<RenewalAttempt> stalled = new ArrayDeque<>();

	RenewalWindow(long stallNanos, long deadlineNanos) {
		this.stallNanos = stallNanos;
		this.deadlineNanos = deadlineNanos;
	}

	/** How many more renewals may be sent now; 0 or less when none. */
	int room() {
		return WINDOW - this.inFlight.get();
	}

	/**
	 * Count renewals sent together at the given time.
	 * @return the attempts, to be told the answers in the same order
	 */
	List<RenewalAttempt> sent(List<LeaseRenewal> batch, long sentAt) {
		List<RenewalAttempt> attempts = new ArrayList<>(batch.size());
		for (LeaseRenewal renewal : batch) {
			renewal.sent(sentAt);
			RenewalAttempt attempt = new RenewalAttempt(renewal, sentAt, this.inFlight);
			attempts.add(attempt);
			this.young.addLast(attempt);
		}
		this.inFlight.addAndGet(batch.size());
		return attempts;
	}

	/**
	 * Take the answers that arrived, in the order the renewals were sent; stop counting
	 * the renewals that wait for a stalled server, fail those past their deadline, and
	 * lose the leases that ran out meanwhile.
	 */
	void settle(long now, Settled settled) {
		RenewalAttempt attempt;
		while ((attempt = this.young.peekFirst()) != null) {
			if (attempt.isAnswered()) {
				settled.answered(this.young.pollFirst());
			}
			else if (now - attempt.sentAt() >= this.stallNanos) {
				attempt.stall();
				this.stalled.addLast(this.young.pollFirst());
			}
			else {
				break;
			}
		}
		this.stalled.removeIf((stalled) -> {
			LeaseRenewal renewal = stalled.renewal();
			if (stalled.isAnswered()) {
				settled.answered(stalled);
				return true;
			}
			if (!renewal.isWatched()) {
				return true;
			}
			if (now - stalled.sentAt() >= this.deadlineNanos && renewal.settle(stalled.sentAt())) {
				settled.failed(renewal, new RedisCommandTimeoutException("Redis did not answer the renewal within "
						+ TimeUnit.NANOSECONDS.toMillis(now - stalled.sentAt()) + " ms"), now);
				return true;
			}
			if (now - renewal.lease().expiresAtNanos() >= 0) {
				settled.expired(renewal);
				return true;
			}
			return false;
		});
	}

	/** Told how renewals in flight were settled, on the tick thread. */
	interface Settled {

		/** The renewal was answered, in time or not. */
		void answered(RenewalAttempt attempt);

		/**
		 * The renewal failed, or went unanswered past its deadline: send it again.
		 * @param retryAt when to send it again, as {@link System#nanoTime()}
		 */
		void failed(LeaseRenewal renewal, Throwable failure, long retryAt);

		/** The lease ran out while its renewal waited for an answer. */
		void expired(LeaseRenewal renewal);

	}

}
