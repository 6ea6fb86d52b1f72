package io.github.redislock.engine;

import java.time.Duration;
import java.util.Properties;
import java.util.Set;

import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * How release messages travel: sharded pub/sub ({@code SPUBLISH} / {@code SSUBSCRIBE}) on
 * a Redis Cluster whose nodes all run Redis 7 or later, so that a release reaches only
 * the shard that owns the lock, and plain pub/sub everywhere else (a single server,
 * Sentinel, or a cluster with an older node, where a {@code PUBLISH} is broadcast to
 * every node).
 *
 * <p>
 * The choice needs the server version, so it is made at the first use, not when the
 * engine is created: an application may start while Redis is still unreachable. Once made
 * it holds for the engine's life, since publisher and subscribers must agree.
 *
 * @author redis-lock
 */
final class ReleaseMessaging {

	private static final int SHARDED_PUB_SUB_VERSION = 7;

	/** Lettuce's own default. */
	private static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

	private final RedisConnectionFactory connectionFactory;

	private volatile @Nullable Boolean sharded;

	ReleaseMessaging(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		if (!isCluster(connectionFactory)) {
			this.sharded = false;
		}
	}

	/**
	 * The command that publishes a release message, for the release script.
	 * @throws RuntimeException from the Redis client when the server version could not be
	 * read
	 */
	String publishCommand() {
		return isSharded() ? "spublish" : "publish";
	}

	/** Open the subscriber that suits the servers. */
	ReleaseSubscriber subscriber(String controlChannel, ReleaseSubscriber.Listener listener) {
		if (isSharded()) {
			LettuceConnectionFactory lettuce = (LettuceConnectionFactory) this.connectionFactory;
			return new ShardedReleaseSubscriber((RedisClusterClient) lettuce.getRequiredNativeClient(),
					Duration.ofMillis(lettuce.getTimeout()), listener);
		}
		return new PlainReleaseSubscriber(this.connectionFactory, controlChannel, commandTimeout(), listener);
	}

	/** The client's command timeout, which bounds the wait for a subscription. */
	private Duration commandTimeout() {
		return (this.connectionFactory instanceof LettuceConnectionFactory lettuce)
				? Duration.ofMillis(lettuce.getTimeout()) : DEFAULT_COMMAND_TIMEOUT;
	}

	boolean isSharded() {
		Boolean known = this.sharded;
		if (known == null) {
			known = everyNodeAtLeast(SHARDED_PUB_SUB_VERSION);
			this.sharded = known;
		}
		return known;
	}

	private boolean everyNodeAtLeast(int major) {
		Properties info = new StringRedisTemplate(this.connectionFactory)
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("server"));
		boolean any = false;
		for (String name : (info != null) ? info.stringPropertyNames() : Set.<String>of()) {
			// A cluster connection prefixes each node's properties with its address.
			if (name.endsWith("redis_version")) {
				any = true;
				if (majorVersion(info.getProperty(name)) < major) {
					return false;
				}
			}
		}
		return any;
	}

	private static int majorVersion(String version) {
		int dot = version.indexOf('.');
		try {
			return Integer.parseInt((dot > 0) ? version.substring(0, dot) : version);
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	private static boolean isCluster(RedisConnectionFactory connectionFactory) {
		return connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
	}

}
