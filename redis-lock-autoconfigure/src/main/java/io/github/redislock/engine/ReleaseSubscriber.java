package io.github.redislock.engine;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The connection on which an engine subscribes to release channels: plain pub/sub through
 * Spring Data Redis, or sharded pub/sub on a Redis 7 cluster. Subscribing and
 * unsubscribing are called one at a time per channel, never concurrently for one channel.
 *
 * @author redis-lock
 */
interface ReleaseSubscriber extends AutoCloseable {

	/**
	 * Subscribe to a channel, opening the connection first if needed, and return once
	 * Redis confirmed it.
	 * @throws RuntimeException from the Redis client when subscribing failed
	 */
	void subscribe(String channel);

	/** Unsubscribe from a channel; a failure only costs the channel's messages. */
	void unsubscribe(String channel);

	/**
	 * Repair subscriptions that the connection lost and could not restore by itself;
	 * called periodically from the engine's housekeeping.
	 */
	default void repair() {
	}

	/**
	 * Lettuce's asynchronous commands on the subscription connection itself, so that a
	 * command sent on a release message goes out from the thread that received it, with
	 * no hop to another connection's thread; {@code null} when there are none. They work
	 * where Redis speaks RESP3 to the connection, which lets a subscribed connection run
	 * any command.
	 */
	default @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands() {
		return null;
	}

	/** The state of the connection now. */
	SubscriptionStatus status();

	/** Close the connection; no more messages arrive. */
	@Override
	void close();

	/** Told of what arrives on the connection, on the Redis client's threads. */
	interface Listener {

		/** A message arrived on a subscribed channel. */
		void onMessage(String channel, byte[] body);

		/**
		 * Redis confirmed a subscription, the first time or after a reconnect: messages
		 * published before it may have been missed.
		 */
		void onSubscribed(String channel);

		/**
		 * Release messages of every channel may have been missed, such as when the
		 * connection was opened anew.
		 */
		void onAllMissed();

	}

}
