package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release channels subscribed with sharded pub/sub ({@code SSUBSCRIBE}) on a Redis 7
 * cluster: each channel on the primary that owns its slot, so that a release message
 * reaches that shard's subscribers only instead of being broadcast to every node.
 *
 * <p>
 * Lettuce routes each {@code SSUBSCRIBE} to the owner of the channel's slot and
 * subscribes again when a node connection comes back. Two cases it leaves to us: a slot
 * that moved to another primary (Redis then ends the subscription with an
 * {@code SUNSUBSCRIBE} we did not ask for) and a primary replaced by its replica after a
 * failover (its connection stays down). Both leave a channel subscribed on a node that no
 * longer owns it; {@link #repair()}, run every housekeeping tick, subscribes such
 * channels again at the slot's current owner and wakes their waiters, which try at once.
 * Until then they wake when the holder's lease ends.
 *
 * @author redis-lock
 */
final class ShardedReleaseSubscriber extends RedisClusterPubSubAdapter<byte[], byte[]> implements ReleaseSubscriber {

	private static final Logger logger = LoggerFactory.getLogger(ShardedReleaseSubscriber.class);

	private final RedisClusterClient client;

	private final Duration timeout;

	private final Listener listener;

	/** The channels subscribed on purpose, with the node that confirmed each. */
	private final Map<String, String> channels = new ConcurrentHashMap<>();

	/** Channels whose subscription Redis ended without being asked to. */
	private final Set<String> dropped = ConcurrentHashMap.newKeySet();

	private final Object monitor = new Object();

	private volatile @Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;

	private volatile boolean closed;

	ShardedReleaseSubscriber(RedisClusterClient client, Duration timeout, Listener listener) {
		this.client = client;
		this.timeout = timeout;
		this.listener = listener;
	}

	@Override
	public void subscribe(String channel) {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = open();
		this.channels.put(channel, "");
		current.sync().ssubscribe(bytes(channel));
	}

	@Override
	public void unsubscribe(String channel) {
		this.channels.remove(channel);
		this.dropped.remove(channel);
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection;
		if (current == null) {
			return;
		}
		try {
			current.sync().sunsubscribe(bytes(channel));
		}
		catch (RuntimeException ex) {
			// The node is gone or does not answer; the subscription went or goes with it.
			logger.debug("Could not unsubscribe from {}", channel, ex);
		}
	}

	@Override
	public void repair() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection;
		if (current == null) {
			return;
		}
		this.channels.forEach((channel, node) -> {
			RedisClusterNode owner = current.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel));
			if (this.dropped.contains(channel) || (owner != null && !owner.getNodeId().equals(node))) {
				resubscribe(current, channel);
			}
		});
	}

	private void resubscribe(StatefulRedisClusterPubSubConnection<byte[], byte[]> current, String channel) {
		try {
			current.sync().ssubscribe(bytes(channel));
			this.dropped.remove(channel);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not subscribe again to {}; trying at the next tick", channel, ex);
		}
		// A release may have been published while the channel was not subscribed.
		this.listener.onSubscribed(channel);
	}

	private StatefulRedisClusterPubSubConnection<byte[], byte[]> open() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection;
		if (current != null) {
			return current;
		}
		synchronized (this.monitor) {
			if (this.closed) {
				throw new IllegalStateException("The lock engine was closed");
			}
			if (this.connection == null) {
				StatefulRedisClusterPubSubConnection<byte[], byte[]> opened = this.client
					.connectPubSub(ByteArrayCodec.INSTANCE);
				opened.setTimeout(this.timeout);
				opened.addListener(this);
				this.connection = opened;
			}
			return this.connection;
		}
	}

	@Override
	public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
		this.listener.onMessage(string(channel), message);
	}

	@Override
	public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
		String name = string(channel);
		this.channels.computeIfPresent(name, (key, previous) -> node.getNodeId());
		this.listener.onSubscribed(name);
	}

	@Override
	public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
		String name = string(channel);
		if (this.channels.containsKey(name)) {
			// Not asked for: the slot moved. Subscribe again at its new owner.
			this.dropped.add(name);
			this.listener.onSubscribed(name);
		}
	}

	@Override
	public SubscriptionStatus status() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection;
		if (current == null) {
			return SubscriptionStatus.NONE;
		}
		return (current.isOpen() && this.dropped.isEmpty()) ? SubscriptionStatus.CONNECTED
				: SubscriptionStatus.DISCONNECTED;
	}

	@Override
	public void close() {
		synchronized (this.monitor) {
			this.closed = true;
			StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection;
			this.connection = null;
			if (current != null) {
				try {
					current.close();
				}
				catch (RuntimeException ex) {
					logger.debug("Could not close the subscription connection", ex);
				}
			}
		}
	}

	private static byte[] bytes(String channel) {
		return channel.getBytes(StandardCharsets.UTF_8);
	}

	private static String string(byte[] channel) {
		return new String(channel, StandardCharsets.UTF_8);
	}

}
