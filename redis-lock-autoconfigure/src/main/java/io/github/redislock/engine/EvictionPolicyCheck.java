package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * Reads, on the engine's first connection to each primary, whether Redis may evict lock
 * keys when its memory is full, and warns when it may: an evicted key is a lock lost
 * while held, or a tombstone lost with its fencing token. Redis evicts only under a
 * {@code maxmemory} limit, so a policy without one is not warned about.
 *
 * <p>
 * Asks {@code CONFIG GET maxmemory*} without waiting for the answer. A server that
 * refuses {@code CONFIG} (managed Redis often does) is left unchecked, said at debug
 * level only; one that did not answer is asked again at the engine's next connection.
 *
 * @author redis-lock
 */
final class EvictionPolicyCheck {

	private static final Log logger = LogFactory.getLog(EvictionPolicyCheck.class);

	/** The servers that answered: a cluster primary's node id, or {@code ""}. */
	private final Set<String> answered = ConcurrentHashMap.newKeySet();

	/**
	 * Ask every primary of the connection not answered yet; a warning is logged when the
	 * answer comes.
	 * @return completes once every answer was read, never exceptionally
	 */
	CompletionStage<Void> check(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		try {
			if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
				return checkPrimaries(cluster);
			}
			if (this.answered.contains("")) {
				return CompletableFuture.completedFuture(null);
			}
			return read("", "Redis", commands.configGet("maxmemory*"));
		}
		catch (RuntimeException ex) {
			logger.debug("Could not ask Redis for its eviction policy", ex);
			return CompletableFuture.completedFuture(null);
		}
	}

	private CompletionStage<Void> checkPrimaries(RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
		Map<RedisClusterNode, CompletableFuture<Map<String, String>>> answers = cluster.upstream()
			.commands()
			.configGet("maxmemory*")
			.asMap();
		List<CompletableFuture<Void>> reads = new ArrayList<>();
		answers.forEach((node, answer) -> {
			if (!this.answered.contains(node.getNodeId())) {
				String server = "Redis at " + node.getUri().getHost() + ":" + node.getUri().getPort();
				reads.add(read(node.getNodeId(), server, answer).toCompletableFuture());
			}
		});
		return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new));
	}

	private CompletionStage<Void> read(String id, String server, CompletionStage<Map<String, String>> answer) {
		return answer.handle((config, ex) -> {
			if (ex != null) {
				Throwable cause = ScriptCommands.unwrap(ex);
				if (cause instanceof RedisCommandExecutionException) {
					this.answered.add(id);
				}
				logger.debug(LogMessage.format("Could not read the eviction policy of %s (%s); make sure it does "
						+ "not evict keys: maxmemory-policy noeviction, or no maxmemory", server, cause), cause);
				return null;
			}
			if (this.answered.add(id)) {
				warnIfEvicting(server, config);
			}
			return null;
		});
	}

	private static void warnIfEvicting(String server, @Nullable Map<String, String> config) {
		String policy = (config != null) ? config.get("maxmemory-policy") : null;
		String maxmemory = (config != null) ? config.get("maxmemory") : null;
		if (policy == null || maxmemory == null || policy.equals("noeviction") || isNoLimit(maxmemory)) {
			return;
		}
		logger.warn(LogMessage.format("%s may evict lock keys: its maxmemory-policy is %s with maxmemory %s bytes, and "
				+ "every key of a lock carries a time to live, which volatile-* policies evict first and allkeys-* "
				+ "ones may evict too once memory is full. An evicted key is a held lock lost (two holders may "
				+ "overlap) or a release's tombstone lost with its fencing token. Set maxmemory-policy to noeviction "
				+ "on the servers that hold locks (CONFIG SET maxmemory-policy noeviction, and in redis.conf), or "
				+ "keep the locks on a Redis of their own that does not evict", server, policy, maxmemory));
	}

	private static boolean isNoLimit(String maxmemory) {
		try {
			return Long.parseLong(maxmemory.trim()) == 0;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

}
