package io.github.redislock.engine;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * Waits, with Redis {@code WAIT}, until replicas acknowledged the writes that one
 * connection made. {@code WAIT} counts the acknowledgements of its own connection's
 * writes, so it must run where the grant ran: on a cluster, the connection to the primary
 * that owns the lock's slot.
 *
 * @author redis-lock
 */
final class ReplicaAcknowledgements {

	/** Time allowed for the reply on top of the wait itself. */
	private static final long COMMAND_MARGIN_MILLIS = 2000;

	private ReplicaAcknowledgements() {
	}

	/**
	 * Wait for the replicas.
	 * @param connection the connection that made the writes
	 * @param key a key the writes touched, which names the primary on a cluster
	 * @return how many replicas acknowledged the writes, at most after the timeout
	 */
	@SuppressWarnings("unchecked")
	static long await(RedisConnection connection, String key, int replicas, long timeoutMillis) {
		// Lettuce's asynchronous commands of this very connection, shared or dedicated:
		// the ones the grant was sent on.
		RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
			.getNativeConnection();
		if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			commands = primaryOf(cluster, key);
		}
		try {
			return commands.waitForReplication(replicas, timeoutMillis)
				.get(timeoutMillis + COMMAND_MARGIN_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted while waiting for replicas", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new RedisSystemException("WAIT for " + replicas + " replicas failed", ex);
		}
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
			throw new RedisSystemException("No primary serves the slot of " + key, null);
		}
		RedisURI uri = primary.getUri();
		return cluster.getConnection(uri.getHost(), uri.getPort());
	}

}
