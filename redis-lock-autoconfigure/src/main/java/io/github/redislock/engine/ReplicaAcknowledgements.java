package io.github.redislock.engine;

import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

/**
 * Asks Redis, with {@code WAIT}, how many replicas acknowledged the writes that one
 * connection made. {@code WAIT} counts the acknowledgements of its own connection's
 * writes, so it must run where the grant ran: on a cluster, on the connection to the
 * primary that owns the lock's slot.
 *
 * @author redis-lock
 */
final class ReplicaAcknowledgements {

	private ReplicaAcknowledgements() {
	}

	/**
	 * Send the {@code WAIT}.
	 * @param commands the commands of the connection that made the writes
	 * @param key a key the writes touched, which names the primary on a cluster
	 * @return how many replicas acknowledged the writes, at most after the timeout
	 */
	static CompletionStage<Long> waitFor(RedisClusterAsyncCommands<byte[], byte[]> commands, String key, int replicas,
			long timeoutMillis) {
		RedisClusterAsyncCommands<byte[], byte[]> target = commands;
		if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			target = primaryOf(cluster, key);
		}
		return target.waitForReplication(replicas, timeoutMillis);
	}

	/**
	 * On a cluster, the connection to the primary of the key's slot that Lettuce routes
	 * the slot's writes to: it keys its node connections by host and port.
	 */
	private static RedisClusterAsyncCommands<byte[], byte[]> primaryOf(
			RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster, String key) {
		RedisClusterNode primary = cluster.getStatefulConnection()
			.getPartitions()
			.getPartitionBySlot(SlotHash.getSlot(key));
		if (primary == null) {
			throw new RedisException("No primary serves the slot of " + key);
		}
		RedisURI uri = primary.getUri();
		return cluster.getConnection(uri.getHost(), uri.getPort());
	}

}
