package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * What this JVM knows of the subscription of one release channel.
 *
 * <h2>Design notes</h2>
 *
 * Three states: <em>unsubscribed</em> (never subscribed, or the subscribe failed, or
 * Redis ended the subscription, or the connection that carried it broke or was dropped),
 * <em>subscribing</em> (one subscribe in flight) and <em>subscribed</em> (Redis confirmed
 * it on the current connection). Threads that join a channel while its subscribe is in
 * flight wait for that one subscribe, on its future, with no lock held. The monitor of
 * this object guards the state only: commands are sent outside it, since the Redis client
 * may complete other commands on its own threads while a command is being sent, and their
 * callbacks take this monitor.
 *
 * <p>
 * <b>Order.</b> {@link SubscriptionLifetime} sends an unsubscribe only for a channel that
 * it removes in the same atomic step of the registry's map, so a later waiter's
 * subscribe, sent after it created a new entry, reaches the connection, and Redis, after
 * the unsubscribe: an unsubscribe never overtakes a later subscribe.
 *
 * <p>
 * <b>Stale answers.</b> A subscribe's answer changes the state only while it is still the
 * subscribe in flight: once the connection was dropped meanwhile ({@link #reset()}), its
 * success means nothing. A confirmation that Redis sends by itself (Lettuce subscribing
 * again after a reconnect, or a subscribe answered after its timeout) marks the channel
 * subscribed whatever the state.
 *
 * @author redis-lock
 */
final class ChannelSubscription {

	private static final CompletableFuture<Void> CONFIRMED = CompletableFuture.completedFuture(null);

	private boolean confirmed;

	/** Whether a subscribe was sent since the last unsubscribe. */
	private boolean asked;

	/** The subscribe in flight, or {@code null}. */
	private @Nullable CompletableFuture<Void> pending;

	/**
	 * The subscription to wait for: done when confirmed already, else the one in flight,
	 * else one sent now. Waits for nothing.
	 */
	CompletableFuture<Void> subscribe(ReleaseSubscriber subscriber, String channel) {
		CompletableFuture<Void> answer;
		synchronized (this) {
			if (this.confirmed) {
				return CONFIRMED;
			}
			if (this.pending != null) {
				return this.pending;
			}
			answer = new CompletableFuture<>();
			this.pending = answer;
			this.asked = true;
		}
		// Sent with no lock held: the Redis client may meanwhile complete other commands
		// on its own threads, whose callbacks come here.
		CompletableFuture<Void> sent;
		try {
			sent = subscriber.subscribe(channel);
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		sent.whenComplete((ignored, ex) -> {
			answered(answer, ex);
			if (ex != null) {
				answer.completeExceptionally(ex);
			}
			else {
				answer.complete(null);
			}
		});
		return answer;
	}

	private synchronized void answered(CompletableFuture<Void> answer, @Nullable Throwable failure) {
		if (this.pending != answer) {
			return;
		}
		this.pending = null;
		if (failure == null) {
			this.confirmed = true;
		}
	}

	/** Redis confirmed the subscription. */
	synchronized void confirmed() {
		this.confirmed = true;
		this.asked = true;
	}

	/**
	 * Redis ended a confirmed subscription without being asked, such as when the slot of
	 * a sharded channel moved.
	 */
	synchronized void lost() {
		this.confirmed = false;
	}

	/** The connection that carried the subscription, or its subscribe, was dropped. */
	synchronized void reset() {
		this.confirmed = false;
		this.pending = null;
	}

	/** Send the unsubscribe, as the channel is given up; waits for nothing. */
	void unsubscribe(ReleaseSubscriber subscriber, String channel) {
		synchronized (this) {
			reset();
			this.asked = false;
		}
		subscriber.unsubscribe(channel);
	}

	synchronized boolean isConfirmed() {
		return this.confirmed;
	}

	/** Whether it is neither subscribed nor being subscribed. */
	synchronized boolean isIdle() {
		return !this.confirmed && this.pending == null;
	}

	/**
	 * Whether Redis was never asked to subscribe since the last unsubscribe, so nothing
	 * needs unsubscribing: a subscribe that failed may have reached Redis all the same.
	 */
	synchronized boolean isNeverAsked() {
		return !this.asked;
	}

}
