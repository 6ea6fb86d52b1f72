package io.github.redislock.engine;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;

import org.springframework.core.log.LogMessage;

/**
 * Release channels subscribed with sharded pub/sub ({@code SSUBSCRIBE}) on a Redis 7
 * cluster, each on the primary that owns its slot, so a release message reaches that
 * shard's subscribers only instead of every node.
 *
 * <p>
 * Lettuce routes each {@code SSUBSCRIBE} to the slot's owner. Two cases it leaves to us
 * leave a channel subscribed on a node that no longer owns it: a slot that moved (Redis
 * ends the subscription with an unasked {@code SUNSUBSCRIBE}, reported as it comes) and a
 * primary replaced by its replica (its connection stays down), found by {@link #repair()}
 * comparing, every sweep, the node that confirmed each subscription with the slot's
 * owner. The engine then subscribes the channel again if it still has waiters. Nodes are
 * recorded from confirmations only, so a failed subscribe leaves nothing to repair.
 *
 * @author redis-lock
 */
final class ShardedReleaseSubscriber extends ReleaseSubscriber<StatefulRedisClusterPubSubConnection<byte[], byte[]>> {

	private static final Log logger = LogFactory.getLog(ShardedReleaseSubscriber.class);

	private final RedisClusterClient client;

	/** Tells the listener of connections of the client that dropped. */
	private final Disposable disconnections;

	/** The node that confirmed each subscription, by channel. */
	private final Map<String, String> nodes = new ConcurrentHashMap<>();

	ShardedReleaseSubscriber(RedisClusterClient client, Duration timeout, ReleaseSubscriptions listener) {
		super(listener, timeout);
		this.client = client;
		// Lettuce subscribes a node's channels again on reconnecting with one SSUBSCRIBE,
		// which Redis refuses across slots (CROSSSLOT), and the cluster API tells of no
		// node connection that drops: so any dropped connection of the client loses every
		// subscription, and the engine subscribes each channel with waiters again.
		this.disconnections = client.getResources()
			.eventBus()
			.get()
			.filter(ConnectionDeactivatedEvent.class::isInstance)
			.subscribe((event) -> listener.onAllLost());
	}

	@Override
	StatefulRedisClusterPubSubConnection<byte[], byte[]> open() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> opened = this.client
			.connectPubSub(ByteArrayCodec.INSTANCE);
		opened.setTimeout(this.timeout);
		opened.addListener(new RedisClusterPubSubAdapter<>() {

			@Override
			public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
				ShardedReleaseSubscriber.this.listener.onMessage(string(channel), message);
			}

			@Override
			public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
				String name = string(channel);
				if (node != null) {
					ShardedReleaseSubscriber.this.nodes.put(name, node.getNodeId());
				}
				ShardedReleaseSubscriber.this.listener.onSubscribed(name);
			}

			@Override
			public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
				// Asked for (then forgotten already), or the slot moved.
				String name = string(channel);
				if (ShardedReleaseSubscriber.this.nodes.remove(name) != null) {
					ShardedReleaseSubscriber.this.listener.onUnsubscribed(name);
				}
			}

		});
		return opened;
	}

	@Override
	void drop(StatefulRedisClusterPubSubConnection<byte[], byte[]> opened) {
		opened.close();
	}

	@Override
	boolean isConnected(StatefulRedisClusterPubSubConnection<byte[], byte[]> opened) {
		return opened.isOpen();
	}

	@Override
	CompletionStage<?> sendSubscribe(StatefulRedisClusterPubSubConnection<byte[], byte[]> opened, byte[] channel) {
		return opened.async().ssubscribe(channel);
	}

	@Override
	void unsubscribe(String channel) {
		this.nodes.remove(channel);
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection.now();
		if (current == null) {
			return;
		}
		confirmation(current.async().sunsubscribe(bytes(channel))).whenComplete((ignored, ex) -> {
			if (ex != null) {
				// The node is gone or silent; its subscriptions go with it.
				logger.debug(LogMessage.format("Could not unsubscribe from %s", channel), ex);
			}
		});
	}

	@Override
	void repair() {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> current = this.connection.now();
		if (current == null) {
			return;
		}
		this.nodes.forEach((channel, node) -> {
			RedisClusterNode owner = current.getPartitions().getPartitionBySlot(SlotHash.getSlot(channel));
			if (owner != null && !owner.getNodeId().equals(node) && this.nodes.remove(channel, node)) {
				this.listener.onUnsubscribed(channel);
			}
		});
	}

	@Override
	public void close() {
		this.disconnections.dispose();
		super.close();
	}

}
