package io.github.redislock.engine;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * How release messages travel: sharded pub/sub ({@code SPUBLISH} / {@code SSUBSCRIBE}) on
 * a Redis Cluster whose nodes all run Redis 7 or later, so a release reaches only the
 * shard that owns the lock, and plain pub/sub elsewhere (where a {@code PUBLISH} reaches
 * every node).
 *
 * <p>
 * The choice needs the server version, asked in the background as the engine starts, or
 * by a lock call if the answer is not there yet (Redis may be down at startup). Every
 * cluster node is asked at once; a silent one is waited for at most a second after the
 * others answered, so it delays the first lock calls and fails none. The choice holds for
 * the engine's life, since publisher and subscribers must agree.
 *
 * @author redis-lock
 */
final class ReleaseMessaging {

	private static final Log logger = LogFactory.getLog(ReleaseMessaging.class);

	private static final int SHARDED_PUB_SUB_VERSION = 7;

	/** Lettuce's own default. */
	private static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

	/** How long the version check waits for the other nodes after the first answered. */
	private static final long SILENT_NODE_GRACE_MILLIS = 1000;

	private final RedisConnectionFactory connectionFactory;

	private volatile @Nullable Boolean sharded;

	/**
	 * One thread asks the cluster: a lock, not a monitor, since on JDK 21 to 23 a virtual
	 * thread waiting in a monitor pins its carrier.
	 */
	private final ReentrantLock deciding = new ReentrantLock();

	ReleaseMessaging(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware())) {
			this.sharded = false;
		}
	}

	/**
	 * The command that publishes a release message, for the release script.
	 * @throws RuntimeException from the Redis client when the version could not be read
	 */
	String publishCommand() {
		return isSharded() ? "spublish" : "publish";
	}

	/**
	 * Open the subscriber that suits the servers.
	 * @param reopener opens a new subscription connection after one was dropped
	 */
	ReleaseSubscriber<?> subscriber(String controlChannel, ReleaseSubscriptions listener, Executor reopener) {
		if (isSharded()) {
			RedisClusterClient client = (RedisClusterClient) ((LettuceConnectionFactory) this.connectionFactory)
				.getRequiredNativeClient();
			return new ShardedReleaseSubscriber(client, commandTimeout(), listener);
		}
		return new PlainReleaseSubscriber(this.connectionFactory, controlChannel, commandTimeout(), listener, reopener);
	}

	/** The client's command timeout, which bounds the waits for Redis here. */
	private Duration commandTimeout() {
		return (this.connectionFactory instanceof LettuceConnectionFactory lettuce)
				? Duration.ofMillis(lettuce.getTimeout()) : DEFAULT_COMMAND_TIMEOUT;
	}

	/** Whether the choice is made, so {@link #publishCommand()} waits for nothing. */
	boolean isDecided() {
		return this.sharded != null;
	}

	private boolean isSharded() {
		Boolean known = this.sharded;
		if (known != null) {
			return known;
		}
		this.deciding.lock();
		try {
			if (this.sharded == null) {
				this.sharded = everyNodeShards();
			}
			return this.sharded;
		}
		finally {
			this.deciding.unlock();
		}
	}

	/** Ask every node for its version, all at once, as the class comment tells. */
	private boolean everyNodeShards() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			RedisAdvancedClusterAsyncCommands<?, ?> commands = (RedisAdvancedClusterAsyncCommands<?, ?>) connection
				.getNativeConnection();
			StatefulRedisClusterConnection<?, ?> cluster = commands.getStatefulConnection();
			Map<String, CompletableFuture<Integer>> versions = new TreeMap<>();
			for (RedisClusterNode node : cluster.getPartitions()) {
				Set<NodeFlag> flags = node.getFlags();
				if (!flags.contains(NodeFlag.NOADDR) && !flags.contains(NodeFlag.HANDSHAKE)
						&& !flags.contains(NodeFlag.FAIL)) {
					versions.put(node.getUri().getHost() + ":" + node.getUri().getPort(),
							cluster.getConnectionAsync(node.getNodeId())
								.thenCompose((nodeConnection) -> nodeConnection.async().info("server"))
								.thenApply(ReleaseMessaging::majorVersionIn)
								.toCompletableFuture());
				}
			}
			return decide(versions, commandTimeout().toMillis());
		}
	}

	/** Wait for the first answer at most timeoutMillis, and for the others the grace. */
	private static boolean decide(Map<String, CompletableFuture<Integer>> versions, long timeoutMillis) {
		CompletableFuture<Void> firstAnswer = new CompletableFuture<>();
		CompletableFuture<Boolean> decision = new CompletableFuture<>();
		AtomicInteger pending = new AtomicInteger(versions.size() + 1);
		Runnable countDown = () -> {
			if (pending.decrementAndGet() == 0) {
				if (nodes(versions, true).isEmpty()) {
					RedisConnectionFailureException failure = new RedisConnectionFailureException(
							"No node of the Redis Cluster told its version");
					firstAnswer.completeExceptionally(failure);
					decision.completeExceptionally(failure);
				}
				else {
					decision.complete(true);
				}
			}
		};
		versions.values().forEach((version) -> version.whenComplete((major, ex) -> {
			if (major != null) {
				firstAnswer.complete(null);
				if (major < SHARDED_PUB_SUB_VERSION) {
					decision.complete(false);
				}
			}
			countDown.run();
		}));
		countDown.run();
		try {
			firstAnswer.get(timeoutMillis, TimeUnit.MILLISECONDS);
			return decision.get(SILENT_NODE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			Set<String> answered = nodes(versions, true);
			if (answered.isEmpty()) {
				throw new RedisConnectionFailureException(
						"No node of the Redis Cluster answered INFO within " + timeoutMillis + " ms");
			}
			logger.warn(LogMessage.format(
					"Redis Cluster nodes %s did not tell their version within %s ms; taking them to run "
							+ "Redis %s or later like %s and sending lock release messages by sharded pub/sub",
					nodes(versions, false), SILENT_NODE_GRACE_MILLIS, SHARDED_PUB_SUB_VERSION, answered));
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisConnectionFailureException("Interrupted while asking Redis for its version", ex);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException failure) ? failure
					: new RedisConnectionFailureException("Could not read the version of Redis", ex.getCause());
		}
	}

	/** The nodes that told their version, or those that did not. */
	private static Set<String> nodes(Map<String, CompletableFuture<Integer>> versions, boolean answered) {
		Set<String> nodes = new TreeSet<>();
		versions.forEach((node, version) -> {
			if ((version.isDone() && !version.isCompletedExceptionally()) == answered) {
				nodes.add(node);
			}
		});
		return nodes;
	}

	/** The major version in the {@code redis_version} field of an {@code INFO} answer. */
	private static int majorVersionIn(String info) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("redis_version:")) {
				String version = line.substring("redis_version:".length()).trim();
				int dot = version.indexOf('.');
				try {
					return Integer.parseInt((dot > 0) ? version.substring(0, dot) : version);
				}
				catch (NumberFormatException ex) {
					return 0;
				}
			}
		}
		return 0;
	}

}
