package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Sends the acquire script without blocking, for a waiter woken by a release message: the
 * thread that received the message sends it at once, and the waiter wakes only when the
 * answer is there, which takes a thread wake-up off the path from release to grant.
 *
 * <p>
 * Uses Lettuce's asynchronous commands of one connection from the factory (its shared
 * connection, unless sharing is off), kept for the engine's life. Sends the script by
 * digest only: a server that does not know it yet answers with an error, and the waiter
 * then tries the usual way, which loads it.
 *
 * @author redis-lock
 */
final class AsyncAcquirer implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(AsyncAcquirer.class);

	private final RedisConnectionFactory connectionFactory;

	private final LockKeys keys;

	private final String acquireDigest;

	private @Nullable RedisConnection connection;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	private volatile boolean closed;

	/**
	 * Whether the subscription connection refused a command, as it does when the server
	 * speaks RESP2 to it.
	 */
	private volatile boolean subscriptionRefusesCommands;

	AsyncAcquirer(RedisConnectionFactory connectionFactory, LockKeys keys, String acquireDigest) {
		this.connectionFactory = connectionFactory;
		this.keys = keys;
		this.acquireDigest = acquireDigest;
	}

	/**
	 * Run {@code acquire.lua} for the owner.
	 * @return the attempt; completes exceptionally when Redis failed or did not know the
	 * script
	 */
	CompletionStage<LockScripts.Attempt> acquire(String name, String owner, long leaseMillis,
			@Nullable RedisClusterAsyncCommands<byte[], byte[]> subscriptionCommands) {
		if (subscriptionCommands != null && !this.subscriptionRefusesCommands) {
			return send(subscriptionCommands, name, owner, leaseMillis).exceptionallyCompose((ex) -> {
				// RESP2: a subscribed connection runs no other command. Use our own.
				this.subscriptionRefusesCommands = true;
				return acquire(name, owner, leaseMillis, null);
			});
		}
		try {
			return send(commands(), name, owner, leaseMillis).whenComplete((attempt, ex) -> {
				if (ex != null) {
					forget();
				}
			});
		}
		catch (RuntimeException ex) {
			forget();
			return CompletableFuture.failedFuture(ex);
		}
	}

	private CompletionStage<LockScripts.Attempt> send(RedisClusterAsyncCommands<byte[], byte[]> async, String name,
			String owner, long leaseMillis) {
		try {
			byte[][] keys = { bytes(this.keys.lockKey(name)), bytes(this.keys.fenceKey(name)),
					bytes(this.keys.contendersKey(name)) };
			CompletionStage<List<Object>> reply = async.<List<Object>>evalsha(this.acquireDigest,
					ScriptOutputType.MULTI, keys, bytes(owner), bytes(Long.toString(leaseMillis)),
					bytes(Long.toString(LockScripts.FENCE_RETENTION_MILLIS)), bytes(LockScripts.instanceOf(owner)));
			return reply.thenApply(LockScripts::attempt);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@SuppressWarnings("unchecked")
	private synchronized RedisClusterAsyncCommands<byte[], byte[]> commands() {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		if (current != null) {
			return current;
		}
		if (this.closed) {
			throw new IllegalStateException("The lock engine was closed");
		}
		RedisConnection opened = this.connectionFactory.getConnection();
		this.connection = opened;
		current = (RedisClusterAsyncCommands<byte[], byte[]>) opened.getNativeConnection();
		this.commands = current;
		return current;
	}

	/** Drop the connection after a failure: the factory may have replaced it. */
	private synchronized void forget() {
		this.commands = null;
		closeConnection();
	}

	private void closeConnection() {
		RedisConnection current = this.connection;
		this.connection = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not close the connection of asynchronous acquisitions", ex);
			}
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		this.commands = null;
		closeConnection();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
