package io.github.redislock.engine;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.Lifecycle;
import org.springframework.core.log.LogMessage;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;

/**
 * Release channels subscribed with plain pub/sub ({@code SUBSCRIBE}) on one connection
 * from the Spring Data Redis connection factory, which stays subscribed to a control
 * channel: Spring Data Redis needs one, and its confirmation after a reconnect tells that
 * messages may have been missed. Release channels go through Lettuce's asynchronous
 * commands on that connection, so no caller waits for Redis holding anything.
 *
 * <p>
 * Lettuce reconnects a broken connection and subscribes again to every confirmed channel
 * (the listener hears of a loss of all, then of each confirmation). It leaves two cases
 * to us: an unsubscribe not answered in time, which leaves the subscriptions unknown, and
 * a connection ended for good (closed, or no automatic reconnection). Then
 * {@link #repair()}, at the next sweep, drops the connection, which tells the listener
 * every subscription is lost, and opens another on the engine's executor.
 *
 * @author redis-lock
 */
final class PlainReleaseSubscriber extends ReleaseSubscriber<PlainReleaseSubscriber.Link> {

	private static final Log logger = LogFactory.getLog(PlainReleaseSubscriber.class);

	private final RedisConnectionFactory connectionFactory;

	private final byte[] controlChannel;

	/** Opens a new connection after the last was dropped, as that waits for Redis. */
	private final Executor reopener;

	PlainReleaseSubscriber(RedisConnectionFactory connectionFactory, String controlChannel, Duration timeout,
			ReleaseSubscriptions listener, Executor reopener) {
		super(listener, timeout);
		this.connectionFactory = connectionFactory;
		this.controlChannel = bytes(controlChannel);
		this.reopener = reopener;
	}

	@Override
	CompletionStage<?> sendSubscribe(Link opened, byte[] channel) {
		return opened.commands.subscribe(channel);
	}

	@Override
	void unsubscribe(String channel) {
		Link current = this.connection.now();
		if (current == null || !isUsable(current)) {
			// Gone, or to be dropped with all its subscriptions.
			return;
		}
		confirmation(current.commands.unsubscribe(bytes(channel))).whenComplete((ignored, ex) -> {
			if (ex != null) {
				logger.debug(LogMessage.format("Could not unsubscribe from %s; dropping the subscription connection",
						channel), ex);
				current.broken = true;
			}
		});
	}

	@Override
	void repair() {
		Link current = this.connection.now();
		if (this.connection.wasOpened() && (current == null || !isUsable(current))) {
			this.connection.openInBackground(this.reopener);
		}
	}

	@Override
	Link open() {
		Link link = new Link();
		RedisConnection opened = this.connectionFactory.getConnection();
		try {
			// With Lettuce this returns once subscribed.
			opened.subscribe(link, this.controlChannel);
			link.attach(opened);
		}
		catch (RuntimeException ex) {
			closeQuietly(opened);
			throw ex;
		}
		return link;
	}

	/** Drop a connection: nothing it says counts any more, and its subscriptions went. */
	@Override
	void drop(Link link) {
		link.dropped = true;
		if (link.connection != null) {
			closeQuietly(link.connection);
		}
		this.listener.onAllLost();
	}

	/** Close without waiting: Spring Data Redis unsubscribes, then closes. */
	private void closeQuietly(RedisConnection redisConnection) {
		// A stopped factory closed it already (a context stops lifecycle beans first).
		if (this.connectionFactory instanceof Lifecycle lifecycle && !lifecycle.isRunning()) {
			return;
		}
		try {
			redisConnection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not close the subscription connection", ex);
		}
	}

	@Override
	boolean isUsable(Link opened) {
		if (opened.broken || opened.dropped || opened.connection == null || opened.commands == null) {
			return false;
		}
		Subscription subscription = opened.connection.getSubscription();
		StatefulConnection<?, ?> stateful = opened.commands.getStatefulConnection();
		// Closed, or broken with nothing to reconnect it.
		boolean ended = (stateful instanceof RedisChannelHandler<?, ?> handler && handler.isClosed())
				|| (!stateful.isOpen() && !stateful.getOptions().isAutoReconnect());
		return subscription != null && subscription.isAlive() && !ended;
	}

	/** Usable while Lettuce's connection is open, as Spring Data Redis reconnects it. */
	@Override
	boolean isConnected(Link opened) {
		return opened.commands != null && opened.commands.getStatefulConnection().isOpen();
	}

	/** One subscription connection and what it reports, until it is dropped. */
	final class Link implements MessageListener, SubscriptionListener, RedisConnectionStateListener {

		@Nullable RedisConnection connection;

		@Nullable RedisPubSubAsyncCommands<byte[], byte[]> commands;

		/** Whether an unsubscribe failed, which leaves the subscriptions unknown. */
		volatile boolean broken;

		volatile boolean dropped;

		@SuppressWarnings("unchecked")
		void attach(RedisConnection opened) {
			// A subscribed LettuceConnection answers with its subscription's commands.
			if (!(opened.getNativeConnection() instanceof RedisPubSubAsyncCommands<?, ?> pubSub)) {
				throw new IllegalStateException("Redis connection " + opened + " did not start a subscription");
			}
			this.connection = opened;
			this.commands = (RedisPubSubAsyncCommands<byte[], byte[]>) pubSub;
			this.commands.getStatefulConnection().addListener(this);
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			if (!this.dropped) {
				PlainReleaseSubscriber.this.listener.onMessage(string(message.getChannel()), message.getBody());
			}
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			if (this.dropped) {
				return;
			}
			if (Arrays.equals(channel, PlainReleaseSubscriber.this.controlChannel)) {
				PlainReleaseSubscriber.this.listener.onAllMissed();
			}
			else {
				PlainReleaseSubscriber.this.listener.onSubscribed(string(channel));
			}
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> disconnected) {
			// Lettuce subscribes again on reconnecting; see the class comment.
			if (!this.dropped) {
				PlainReleaseSubscriber.this.listener.onAllLost();
			}
		}

		@Override
		public void onChannelUnsubscribed(byte[] channel, long count) {
			if (!this.dropped && !Arrays.equals(channel, PlainReleaseSubscriber.this.controlChannel)) {
				PlainReleaseSubscriber.this.listener.onUnsubscribed(string(channel));
			}
		}

	}

}
