package io.github.redislock.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;

/**
 * What this JVM knows of the subscription of one release channel, for
 * {@link ReleaseSubscriptions}, whose design note gives the order of subscribes and
 * unsubscribes.
 *
 * <h2>Design notes</h2>
 *
 * Unsubscribed, subscribing (one subscribe in flight, whose future every joining thread
 * waits on with no lock held) or subscribed (confirmed on the current connection). The
 * monitor guards the state only: commands are sent outside it, since the Redis client may
 * complete other commands, whose callbacks take it, while one is being sent. A
 * subscribe's answer counts only while it is still the one in flight (not after a
 * {@link #reset()}); a confirmation Redis sends by itself (Lettuce subscribing again
 * after a reconnect, or an answer after the timeout) marks it subscribed whatever the
 * state.
 *
 * @author redis-lock
 */
final class ChannelSubscription {

	private boolean confirmed;

	/** See {@link #isNeverAsked()}. */
	private boolean asked;

	private @Nullable CompletableFuture<Void> pending;

	/**
	 * The subscription to wait for: done when confirmed already, else the one in flight,
	 * else one sent now. Waits for nothing.
	 */
	CompletableFuture<Void> subscribe(ReleaseSubscriber<?> subscriber, String channel) {
		CompletableFuture<Void> answer;
		synchronized (this) {
			if (this.confirmed) {
				return CompletableFuture.completedFuture(null);
			}
			if (this.pending != null) {
				return this.pending;
			}
			answer = new CompletableFuture<>();
			this.pending = answer;
			this.asked = true;
		}
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

	/**
	 * Wait, with no lock held, until Redis confirmed it, subscribing if nobody does.
	 * @throws RuntimeException from the Redis client when subscribing failed (with the
	 * interrupt status set when interrupted)
	 */
	void await(ReleaseSubscriber<?> subscriber, String channel) {
		if (isConfirmed()) {
			return;
		}
		// Opens the connection unless it is open, waiting for Redis.
		subscriber.connection.get();
		try {
			// Bounded by the command timeout: see ReleaseSubscriber#subscribe.
			subscribe(subscriber, channel).get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisCommandInterruptedException(ex);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new RedisException("Could not subscribe to " + channel, ex.getCause());
		}
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

	synchronized void confirmed() {
		this.confirmed = true;
		this.asked = true;
	}

	/** Redis ended the subscription unasked, as when a sharded channel's slot moved. */
	synchronized void lost() {
		this.confirmed = false;
	}

	/** The connection that carried the subscription, or its subscribe, was dropped. */
	synchronized void reset() {
		this.confirmed = false;
		this.pending = null;
	}

	/** Send the unsubscribe, as the channel is given up; waits for nothing. */
	void unsubscribe(ReleaseSubscriber<?> subscriber, String channel) {
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
