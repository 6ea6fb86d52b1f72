package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandTimeoutException;

import io.github.redislock.SubscriptionStatus;

/**
 * The connection on which an engine subscribes to release channels, plain or sharded
 * ({@link ReleaseMessaging}). It sends commands without waiting for them and keeps no
 * record of what should be subscribed: {@link ReleaseSubscriptions} does, and is told
 * what Redis confirms and what was lost.
 *
 * @author redis-lock
 */
interface ReleaseSubscriber extends AutoCloseable {

	/**
	 * Open the connection unless it is open, waiting for Redis; called with no lock held.
	 * @throws RuntimeException from the Redis client when it could not be opened
	 */
	void connect();

	/**
	 * Send a subscription to a channel without waiting for it.
	 * @return completes when Redis confirmed it; exceptionally when the connection is not
	 * open, or Redis refused it or did not confirm it within the command timeout (a late
	 * confirmation still reaches {@link Listener#onSubscribed})
	 */
	CompletableFuture<Void> subscribe(String channel);

	/**
	 * Send an unsubscription from a channel without waiting for it. A failure costs at
	 * most the channel's messages until the subscriber repairs the connection.
	 */
	void unsubscribe(String channel);

	/**
	 * Repair what the connection lost and could not restore by itself, telling the
	 * listener what went; called from the engine's sweep, waits for nothing.
	 */
	default void repair() {
	}

	/** The state of the connection now. */
	SubscriptionStatus status();

	/** Close the connection; no more messages arrive. */
	@Override
	void close();

	/**
	 * The answer to a subscribe or unsubscribe, bounded by the command timeout whether or
	 * not the Redis client times commands out itself.
	 */
	static CompletableFuture<Void> confirmation(CompletionStage<?> sent, Duration timeout) {
		return sent.toCompletableFuture()
			.<Void>thenApply((ignored) -> null)
			.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
			.exceptionallyCompose((ex) -> CompletableFuture.failedFuture((ex instanceof TimeoutException)
					? new RedisCommandTimeoutException("Redis did not answer within " + timeout) : ex));
	}

	/** Told of what arrives on the connection, on the Redis client's threads. */
	interface Listener {

		/** A message arrived on a subscribed channel. */
		void onMessage(String channel, byte[] body);

		/**
		 * Redis confirmed a subscription, the first time or after a reconnect: messages
		 * published before it may have been missed.
		 */
		void onSubscribed(String channel);

		/** Redis ended a subscription, asked to or not. */
		void onUnsubscribed(String channel);

		/** Messages of every channel may have been missed: the connection is new. */
		void onAllMissed();

		/**
		 * Every subscription is gone, for now (the connection broke, and Lettuce
		 * subscribes again as it reconnects) or for good (the connection was dropped),
		 * until each channel's next confirmation.
		 */
		void onAllLost();

	}

}
