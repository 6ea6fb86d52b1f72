package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * What Redis last confirmed of one renewed grant that may pass between the threads of
 * this JVM ({@link HandOver}, whose design note states the rules), and the checks on
 * their way. Guarded by its own monitor; no Redis command is sent under it.
 *
 * @author redis-lock
 */
final class GrantCheck {

	/** How long after a check that found the grant held was sent the grant may pass. */
	static final long WINDOW_NANOS = 5_000_000;

	/** When the next check should be on its way, so that a pass never waits for one. */
	private static final long ASK_AHEAD_NANOS = WINDOW_NANOS / 2;

	/**
	 * How many more times the grant passes once a check found a thread of another JVM
	 * waiting: enough that the lock does not change JVM at every hold (two round trips
	 * and a wake-up each), few enough that the other JVM waits a bounded number of holds.
	 */
	static final int PASSES_WHILE_OTHERS_WAIT = 16;

	/** When the last check that found the grant held was sent; 0 for none yet. */
	private long checkedAt;

	/** The server's clock at that check, in microseconds: every token stays below it. */
	private long serverMicros;

	private boolean othersWait;

	private int passesSinceOthersWait;

	private long lastToken;

	private @Nullable CompletableFuture<Boolean> inFlight;

	private long inFlightSentAt;

	/** A check to send once the one in flight answers, for those who need a later one. */
	private @Nullable CompletableFuture<Boolean> queued;

	GrantCheck(long grantToken) {
		this.lastToken = grantToken;
	}

	/** The next holder's token, or 0 while the grant may not pass ({@link #isFresh}). */
	synchronized long nextToken(long now) {
		if (!isFresh(now)) {
			return 0;
		}
		if (this.othersWait) {
			this.passesSinceOthersWait++;
		}
		return ++this.lastToken;
	}

	/**
	 * Whether the grant may pass now: a check found it held within the window, the next
	 * token stays below the server's clock at that check, and, when a thread of another
	 * JVM waits, the grant has not yet passed {@link #PASSES_WHILE_OTHERS_WAIT} times.
	 */
	synchronized boolean isFresh(long now) {
		return this.checkedAt != 0 && now - this.checkedAt <= WINDOW_NANOS && this.lastToken + 1 < this.serverMicros
				&& (!this.othersWait || this.passesSinceOthersWait < PASSES_WHILE_OTHERS_WAIT);
	}

	/** Whether the grant has passed as often as it may while others wait. */
	synchronized boolean yieldsToOthers() {
		return this.othersWait && this.passesSinceOthersWait >= PASSES_WHILE_OTHERS_WAIT;
	}

	/** Whether a check should be sent now: none sent within half the window. */
	synchronized boolean shouldAskAhead(long now) {
		if (yieldsToOthers()) {
			return false;
		}
		long last = (this.inFlight != null) ? this.inFlightSentAt : this.checkedAt;
		return this.checkedAt == 0 || now - last > ASK_AHEAD_NANOS;
	}

	/**
	 * A check sent at or after {@code since}, else the one queued to go when the check in
	 * flight answers: holders that need a later check share it, so that a line of holders
	 * passing the lock costs one check per round trip rather than one per holder. When no
	 * check is in flight, {@code fresh} is recorded as sent and {@code null} returned:
	 * the caller sends it.
	 */
	synchronized @Nullable CompletableFuture<Boolean> joinOrSend(long since, CompletableFuture<Boolean> fresh,
			long sentAt) {
		CompletableFuture<Boolean> inFlight = this.inFlight;
		if (inFlight != null && this.inFlightSentAt - since >= 0) {
			return inFlight;
		}
		if (inFlight != null && !inFlight.isDone()) {
			if (this.queued == null) {
				this.queued = new CompletableFuture<>();
			}
			return this.queued;
		}
		this.inFlight = fresh;
		this.inFlightSentAt = sentAt;
		return null;
	}

	/** The queued check, recorded as sent for the caller to send; or {@code null}. */
	synchronized @Nullable CompletableFuture<Boolean> sendQueued(long sentAt) {
		CompletableFuture<Boolean> next = this.queued;
		if (next != null) {
			this.queued = null;
			this.inFlight = next;
			this.inFlightSentAt = sentAt;
		}
		return next;
	}

	/** Record a check, sent at the given time, that found the grant held. */
	synchronized void held(long sentAt, boolean alone, long micros) {
		if (this.checkedAt == 0 || sentAt - this.checkedAt > 0) {
			this.checkedAt = sentAt;
		}
		this.serverMicros = Math.max(this.serverMicros, micros);
		if (!alone) {
			this.othersWait = true;
		}
	}

}
