package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * What Redis last confirmed of one renewed grant that may pass between the threads of
 * this JVM ({@link HandOver}): when the last check that found it held was sent, the
 * server's clock at that check, whether a thread of another JVM waits, and the greatest
 * fencing token given to a holder under the grant. Guarded by its own monitor; no Redis
 * command is sent under it.
 *
 * @author redis-lock
 */
final class GrantCheck {

	/**
	 * How long after a check was sent that found the grant held the grant may still pass
	 * to another thread without asking again.
	 */
	static final long WINDOW_NANOS = 5_000_000;

	/** When a check should be on its way, so that a pass on a live grant never waits. */
	private static final long ASK_AHEAD_NANOS = WINDOW_NANOS / 2;

	/**
	 * How many more times the grant passes once a check found a thread of another JVM
	 * waiting: a few, so that the lock does not change JVM at every hold (two round trips
	 * and a wake-up each), and few enough that the other JVM waits for a bounded number
	 * of holds.
	 */
	static final int PASSES_WHILE_OTHERS_WAIT = 16;

	/** When the last check that found the grant held was sent; 0 for none yet. */
	private long checkedAt;

	/** The server's clock at that check, in microseconds: every token stays below it. */
	private long serverMicros;

	private boolean othersWait;

	/** Passes since a check found a thread of another JVM waiting. */
	private int passesSinceOthersWait;

	private long lastToken;

	private @Nullable CompletableFuture<Boolean> inFlight;

	private long inFlightSentAt;

	/**
	 * A check to send as soon as the one in flight answers, for those who need a later
	 * one.
	 */
	private @Nullable CompletableFuture<Boolean> queued;

	GrantCheck(long grantToken) {
		this.lastToken = grantToken;
	}

	/**
	 * The fencing token of the next holder under the grant, or 0 when the grant may not
	 * pass now: no check found it held within the window, a thread of another JVM waits,
	 * or the next token would not stay below the server's clock at the last check.
	 */
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
	 * JVM waits, the grant has not passed {@link #PASSES_WHILE_OTHERS_WAIT} times since.
	 */
	synchronized boolean isFresh(long now) {
		return this.checkedAt != 0 && now - this.checkedAt <= WINDOW_NANOS && this.lastToken + 1 < this.serverMicros
				&& (!this.othersWait || this.passesSinceOthersWait < PASSES_WHILE_OTHERS_WAIT);
	}

	/** Whether the grant has passed as often as it may while others wait. */
	synchronized boolean yieldsToOthers() {
		return this.othersWait && this.passesSinceOthersWait >= PASSES_WHILE_OTHERS_WAIT;
	}

	/**
	 * Whether a new check should be sent now: the last one is older than half the window
	 * and none has been sent since.
	 */
	synchronized boolean shouldAskAhead(long now) {
		if (yieldsToOthers()) {
			return false;
		}
		long last = (this.inFlight != null) ? this.inFlightSentAt : this.checkedAt;
		return this.checkedAt == 0 || now - last > ASK_AHEAD_NANOS;
	}

	/**
	 * A check sent at or after the given time that is on its way, or {@code null}; the
	 * caller then sends one and records it with {@link #sent}.
	 */
	synchronized @Nullable CompletableFuture<Boolean> inFlightSince(long since) {
		CompletableFuture<Boolean> check = this.inFlight;
		return (check != null && this.inFlightSentAt - since >= 0) ? check : null;
	}

	synchronized void sent(CompletableFuture<Boolean> check, long sentAt) {
		this.inFlight = check;
		this.inFlightSentAt = sentAt;
	}

	/**
	 * The check to send once the one in flight answers, made now if none is queued yet;
	 * {@code null} when no check is in flight, and the caller sends one at once. Holders
	 * that need a check sent after their release began share it, so that a line of
	 * holders passing the lock costs one check per round trip rather than one per holder.
	 */
	synchronized @Nullable CompletableFuture<Boolean> queueBehindInFlight() {
		if (this.inFlight == null || this.inFlight.isDone()) {
			return null;
		}
		if (this.queued == null) {
			this.queued = new CompletableFuture<>();
		}
		return this.queued;
	}

	/** Take the queued check, to send it now; {@code null} when none is queued. */
	synchronized @Nullable CompletableFuture<Boolean> takeQueued() {
		CompletableFuture<Boolean> next = this.queued;
		this.queued = null;
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
