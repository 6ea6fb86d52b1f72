package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;

import io.github.redislock.SubscriptionStatus;

/**
 * The connection on which an engine subscribes to release channels, plain or sharded
 * ({@link ReleaseMessaging}). It sends commands without waiting for them and keeps no
 * record of what should be subscribed: {@link ReleaseSubscriptions} does, and is told
 * what Redis confirms and what was lost.
 *
 * @param <C> the connection type
 * @author redis-lock
 */
abstract sealed class ReleaseSubscriber<C> implements AutoCloseable
		permits PlainReleaseSubscriber, ShardedReleaseSubscriber {

	/** Told of what arrives, on the Redis client's threads. */
	final ReleaseSubscriptions listener;

	final Duration timeout;

	final SharedConnection<C> connection = new SharedConnection<>(this::open, this::isUsable, this::drop);

	ReleaseSubscriber(ReleaseSubscriptions listener, Duration timeout) {
		this.listener = listener;
		this.timeout = timeout;
	}

	/** Open a connection, waiting for Redis; throws when it cannot. */
	abstract C open();

	/** Whether an open connection can still be used: by default, always. */
	boolean isUsable(C opened) {
		return true;
	}

	/** Close a connection that is replaced or closed. */
	abstract void drop(C opened);

	abstract boolean isConnected(C opened);

	abstract CompletionStage<?> sendSubscribe(C opened, byte[] channel);

	/**
	 * Send a subscription to a channel without waiting for it.
	 * @return completes when Redis confirmed it; exceptionally when the connection is not
	 * open, or Redis refused it or did not answer within the command timeout
	 */
	final CompletableFuture<Void> subscribe(String channel) {
		C current = this.connection.now();
		if (current == null || !isUsable(current)) {
			return CompletableFuture.failedFuture(new RedisException("The subscription connection is not open"));
		}
		return confirmation(sendSubscribe(current, bytes(channel)));
	}

	/**
	 * Send an unsubscription from a channel without waiting for it. A failure costs at
	 * most the channel's messages until the subscriber repairs the connection.
	 */
	abstract void unsubscribe(String channel);

	/**
	 * Repair what the connection lost and could not restore by itself, telling the
	 * listener what went; called from the engine's sweep, waits for nothing.
	 */
	void repair() {
	}

	final SubscriptionStatus status() {
		C current = this.connection.now();
		if (current == null) {
			return this.connection.wasOpened() ? SubscriptionStatus.DISCONNECTED : SubscriptionStatus.NONE;
		}
		return (isUsable(current) && isConnected(current)) ? SubscriptionStatus.CONNECTED
				: SubscriptionStatus.DISCONNECTED;
	}

	/** Close the connection; no more messages arrive. */
	@Override
	public void close() {
		this.connection.close();
	}

	/**
	 * The answer to a subscribe or unsubscribe, bounded by the command timeout whether or
	 * not the Redis client times commands out itself.
	 */
	final CompletableFuture<Void> confirmation(CompletionStage<?> sent) {
		return sent.toCompletableFuture()
			.<Void>thenApply((ignored) -> null)
			.orTimeout(this.timeout.toMillis(), TimeUnit.MILLISECONDS)
			.exceptionallyCompose((ex) -> CompletableFuture.failedFuture((ex instanceof TimeoutException)
					? new RedisCommandTimeoutException("Redis did not answer within " + this.timeout) : ex));
	}

	static byte[] bytes(String channel) {
		return channel.getBytes(StandardCharsets.UTF_8);
	}

	static String string(byte[] channel) {
		return new String(channel, StandardCharsets.UTF_8);
	}

}
