package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.Lifecycle;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;

/**
 * Release channels subscribed with plain pub/sub ({@code SUBSCRIBE}) on one connection
 * from the Spring Data Redis connection factory.
 *
 * <p>
 * The connection stays subscribed to a control channel for as long as the engine runs: a
 * Spring Data Redis subscription needs at least one channel, and the control channel's
 * re-subscription after a reconnect tells that messages may have been missed.
 *
 * @author redis-lock
 */
final class PlainReleaseSubscriber implements ReleaseSubscriber, MessageListener, SubscriptionListener {

	private static final Logger logger = LoggerFactory.getLogger(PlainReleaseSubscriber.class);

	private final RedisConnectionFactory connectionFactory;

	private final byte[] controlChannel;

	private final Listener listener;

	private final Object monitor = new Object();

	/** Written under the monitor; volatile for {@link #status()}. */
	private volatile @Nullable RedisConnection connection;

	private volatile boolean closed;

	PlainReleaseSubscriber(RedisConnectionFactory connectionFactory, String controlChannel, Listener listener) {
		this.connectionFactory = connectionFactory;
		this.controlChannel = bytes(controlChannel);
		this.listener = listener;
	}

	@Override
	public void subscribe(String channel) {
		synchronized (this.monitor) {
			openSubscription().subscribe(bytes(channel));
		}
	}

	@Override
	public void unsubscribe(String channel) {
		synchronized (this.monitor) {
			RedisConnection current = this.connection;
			Subscription subscription = (current != null) ? current.getSubscription() : null;
			if (subscription == null || !subscription.isAlive()) {
				return;
			}
			try {
				subscription.unsubscribe(bytes(channel));
			}
			catch (RuntimeException ex) {
				// The connection is gone or Redis does not answer: the channel goes with
				// the connection, which is opened anew at the next subscribe.
				logger.debug("Could not unsubscribe from {}", channel, ex);
				closeConnection();
			}
		}
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		this.listener.onMessage(new String(message.getChannel(), StandardCharsets.UTF_8), message.getBody());
	}

	@Override
	public void onChannelSubscribed(byte[] channel, long count) {
		if (Arrays.equals(channel, this.controlChannel)) {
			this.listener.onAllMissed();
		}
		else {
			this.listener.onSubscribed(new String(channel, StandardCharsets.UTF_8));
		}
	}

	private Subscription openSubscription() {
		if (this.closed) {
			throw new IllegalStateException("The lock engine was closed");
		}
		RedisConnection current = this.connection;
		Subscription subscription = (current != null) ? current.getSubscription() : null;
		if (subscription != null && subscription.isAlive()) {
			return subscription;
		}
		closeConnection();
		RedisConnection opened = this.connectionFactory.getConnection();
		try {
			// With Lettuce this returns once subscribed; the listener is this object.
			opened.subscribe(this, this.controlChannel);
		}
		catch (RuntimeException ex) {
			opened.close();
			throw ex;
		}
		this.connection = opened;
		Subscription created = opened.getSubscription();
		if (created == null) {
			throw new IllegalStateException("Redis connection " + opened + " did not start a subscription");
		}
		return created;
	}

	private void closeConnection() {
		RedisConnection current = this.connection;
		this.connection = null;
		// A factory that was stopped first (as a Spring context stops its lifecycle beans
		// before it destroys the beans that use them) closed the connection already.
		boolean factoryStopped = this.connectionFactory instanceof Lifecycle lifecycle && !lifecycle.isRunning();
		if (current != null && !factoryStopped) {
			try {
				current.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not close the subscription connection", ex);
			}
		}
	}

	@Override
	@SuppressWarnings("unchecked")
	public @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands() {
		RedisConnection current = this.connection;
		try {
			// A LettuceConnection answers with the commands of its subscription
			// connection
			// while subscribed.
			Object commands = (current != null) ? current.getNativeConnection() : null;
			return (commands instanceof RedisPubSubAsyncCommands<?, ?> pubSub)
					? (RedisClusterAsyncCommands<byte[], byte[]>) pubSub : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * The state of the subscription connection now. A subscription stays alive for Spring
	 * Data Redis while Lettuce reconnects it, so the Lettuce connection itself is asked
	 * whether it is connected.
	 */
	@Override
	public SubscriptionStatus status() {
		RedisConnection current = this.connection;
		if (current == null) {
			return SubscriptionStatus.NONE;
		}
		Subscription subscription = current.getSubscription();
		if (subscription == null || !subscription.isAlive()) {
			return SubscriptionStatus.DISCONNECTED;
		}
		try {
			// A LettuceConnection answers with the commands of its subscription
			// connection while subscribed.
			Object commands = current.getNativeConnection();
			if (commands instanceof RedisPubSubAsyncCommands<?, ?> pubSub && !pubSub.getStatefulConnection().isOpen()) {
				return SubscriptionStatus.DISCONNECTED;
			}
			return SubscriptionStatus.CONNECTED;
		}
		catch (RuntimeException ex) {
			// Closed meanwhile.
			return SubscriptionStatus.DISCONNECTED;
		}
	}

	@Override
	public void close() {
		this.closed = true;
		synchronized (this.monitor) {
			closeConnection();
		}
	}

	private static byte[] bytes(String channel) {
		return channel.getBytes(StandardCharsets.UTF_8);
	}

}
