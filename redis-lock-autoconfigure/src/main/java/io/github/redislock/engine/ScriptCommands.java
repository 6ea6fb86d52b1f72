package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the engine's Lua scripts straight on Lettuce's asynchronous commands of one
 * connection from the factory, a {@link SharedConnection} kept for the engine's life.
 * Spring Data's template cost a fifth more time per lock and release than the commands
 * themselves: a connection wrapper, serializers and exception translation per call. Many
 * calls sent at once, the watchdog's renewals, go through {@link ScriptBatches} on the
 * same connection. Each connection opened asks the primaries not asked yet whether they
 * may evict lock keys ({@link EvictionPolicyCheck}).
 *
 * @author redis-lock
 */
sealed class ScriptCommands implements AutoCloseable permits LockScripts {

	/** Time allowed for an answer on top of the client's own command timeout. */
	private static final long ANSWER_MARGIN_MILLIS = 1000;

	private final RedisConnectionFactory connectionFactory;

	private final long timeoutMillis;

	private final EvictionPolicyCheck evictionPolicyCheck = new EvictionPolicyCheck();

	private final SharedConnection<Opened> connection = new SharedConnection<>(this::open, (opened) -> true,
			(opened) -> opened.connection().close());

	ScriptCommands(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.timeoutMillis = (connectionFactory instanceof LettuceConnectionFactory lettuce) ? lettuce.getTimeout()
				: 60_000;
	}

	/**
	 * Run a script and wait for its answer.
	 * @throws RedisCommandInterruptedException when interrupted before or while waiting;
	 * the script may have run, and the interrupt status is kept
	 */
	<T> T execute(ScriptCall<T> call) {
		if (Thread.currentThread().isInterrupted()) {
			throw new RedisCommandInterruptedException(new InterruptedException("Interrupted before sending"));
		}
		return execute(call, true);
	}

	/**
	 * Run a script and wait for its answer even if interrupted, keeping the interrupt
	 * status: a release must not be cut short by the interrupt that often ends the work
	 * done under a lock.
	 */
	<T> T executeUninterruptibly(ScriptCall<T> call) {
		return execute(call, false);
	}

	@SuppressWarnings("unchecked")
	private <T> T execute(ScriptCall<T> call, boolean interruptible) {
		Opened opened = opened();
		return (T) await(opened, call.sendOn(opened.commands()), 0, interruptible);
	}

	/**
	 * Run a script by its source ({@code EVAL}), for a call nobody waits on that may
	 * reach a server which restarted since and no longer knows the digest.
	 */
	void executeBySource(ScriptCall<?> call) {
		Opened opened = opened();
		await(opened, call.prepared().bySource(opened.commands()), 0, false);
	}

	/**
	 * Run a script without ever blocking the calling thread: a connection not open yet is
	 * opened on the executor, since opening waits for Redis.
	 */
	<T> CompletionStage<T> executeAsync(ScriptCall<T> call, Executor opener) {
		Opened current = this.connection.now();
		if (current != null) {
			return call.sendOn(current.commands());
		}
		return this.connection.getWithoutBlocking(opener).thenCompose((opened) -> call.sendOn(opened.commands()));
	}

	/**
	 * How long after it was sent a command may still run in Redis, and how long a caller
	 * waits for it: Lettuce replays unanswered commands after a reconnect, but never one
	 * past its command timeout; plus a margin.
	 */
	long replayWindowMillis() {
		return this.timeoutMillis + ANSWER_MARGIN_MILLIS;
	}

	/** Whether the connection is open, so that a call sent now waits for nothing. */
	boolean isOpen() {
		return this.connection.now() != null;
	}

	/** As {@link #waitForReplicas}, waiting for the answer. */
	long awaitReplicas(String key, int replicas, long timeoutMillis) {
		Long acknowledged = (Long) await(opened(), waitForReplicas(key, replicas, timeoutMillis), timeoutMillis, true);
		return (acknowledged != null) ? acknowledged : 0;
	}

	/**
	 * Ask with {@code WAIT} how many replicas acknowledged the writes of this connection.
	 * {@code WAIT} counts its own connection's writes, so on a cluster it runs on the
	 * connection to the primary of the key's slot, where Lettuce sends the slot's writes.
	 * @return how many replicas acknowledged the writes, at most after the timeout
	 */
	CompletionStage<Long> waitForReplicas(String key, int replicas, long timeoutMillis) {
		RedisClusterAsyncCommands<byte[], byte[]> target = commands();
		if (target instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			RedisClusterNode primary = cluster.getStatefulConnection()
				.getPartitions()
				.getPartitionBySlot(SlotHash.getSlot(key));
			if (primary == null) {
				throw new RedisException("No primary serves the slot of " + key);
			}
			target = cluster.getConnection(primary.getUri().getHost(), primary.getUri().getPort());
		}
		return target.waitForReplication(replicas, timeoutMillis)
			.thenApply((acknowledged) -> (acknowledged != null) ? acknowledged : 0L);
	}

	private @Nullable Object await(Opened opened, CompletionStage<?> answer, long extraMillis, boolean interruptible) {
		try {
			return SharedConnection.await(answer.toCompletableFuture(),
					TimeUnit.MILLISECONDS.toNanos(replayWindowMillis() + extraMillis), interruptible);
		}
		catch (ExecutionException ex) {
			replaceOn(opened, ex.getCause());
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new RedisException("Redis failed", ex.getCause());
		}
		catch (TimeoutException ex) {
			RedisCommandTimeoutException timeout = new RedisCommandTimeoutException(
					"Redis did not answer within " + this.timeoutMillis + " ms");
			replaceOn(opened, timeout);
			throw timeout;
		}
	}

	/** Lettuce's asynchronous commands of the connection, opened at the first use. */
	RedisClusterAsyncCommands<byte[], byte[]> commands() {
		return opened().commands();
	}

	/** Even an interrupted thread waits for another's opening: a release must land. */
	private Opened opened() {
		return this.connection.getUninterruptibly();
	}

	@SuppressWarnings("unchecked")
	private Opened open() {
		RedisConnection opened = this.connectionFactory.getConnection();
		Opened current = new Opened(opened, (RedisClusterAsyncCommands<byte[], byte[]>) opened.getNativeConnection());
		this.evictionPolicyCheck.check(current.commands());
		return current;
	}

	/**
	 * Replace the connection after it failed, since the factory may have replaced it; not
	 * after an error Redis answered, nor a timeout on a cluster, which says nothing of
	 * the other nodes' connections that closing it would fail too.
	 */
	private void replaceOn(Opened opened, @Nullable Throwable failure) {
		if (failure instanceof RedisCommandExecutionException || (failure instanceof RedisCommandTimeoutException
				&& opened.commands() instanceof RedisAdvancedClusterAsyncCommands)) {
			return;
		}
		this.connection.replace(opened);
	}

	@Override
	public void close() {
		this.connection.close();
	}

	/**
	 * The answer by digest or, when the server lacks the script ({@code NOSCRIPT}), the
	 * answer to its source, which also loads it; failures unwrapped.
	 */
	static <T> CompletionStage<T> orBySource(CompletionStage<T> byDigest, Supplier<CompletionStage<T>> bySource) {
		return byDigest
			.handle((answer, ex) -> (ex == null) ? CompletableFuture.completedFuture(answer)
					: (unwrap(ex) instanceof RedisNoScriptException) ? bySource.get()
							: CompletableFuture.<T>failedFuture(unwrap(ex)))
			.thenCompose((answer) -> answer);
	}

	static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static byte[][] bytes(List<String> values) {
		return values.stream().map(ScriptCommands::bytes).toArray(byte[][]::new);
	}

	/** A connection from the factory, with its native commands read once. */
	private record Opened(RedisConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {
	}

	/**
	 * One call of a Lua script with its {@code KEYS} and {@code ARGV}, built in one place
	 * by the kind that owns the script, however it is then sent.
	 */
	record ScriptCall<T>(RedisScript<T> script, List<String> keys, List<String> args) {

		static <T> ScriptCall<T> of(RedisScript<T> script, List<String> keys, String... args) {
			return new ScriptCall<>(script, keys, List.of(args));
		}

		/** Send the call as {@link #orBySource} says; answered on Lettuce's thread. */
		CompletionStage<T> sendOn(RedisClusterAsyncCommands<byte[], byte[]> async) {
			return prepared().sendOn(async);
		}

		/**
		 * The call encoded once, for a call sent again and again ({@link ScriptBatches});
		 * Lettuce decodes the answer as a list for a list script, else as an integer.
		 */
		PreparedCall<T> prepared() {
			Class<?> type = this.script.getResultType();
			return new PreparedCall<>(this.script,
					(type != null && List.class.isAssignableFrom(type)) ? ScriptOutputType.MULTI
							: ScriptOutputType.INTEGER,
					bytes(this.script.getSha1()), bytes(this.keys), bytes(this.args));
		}

	}

	/** A script call encoded for the wire. */
	record PreparedCall<T>(RedisScript<T> script, ScriptOutputType type, byte[] sha, byte[][] keys, byte[][] args) {

		/** Send by digest, as {@link ScriptCommands#orBySource} says. */
		CompletionStage<T> sendOn(RedisClusterAsyncCommands<byte[], byte[]> async) {
			return orBySource(async.evalsha(this.script.getSha1(), this.type, this.keys, this.args),
					() -> bySource(async));
		}

		/** Send by source ({@code EVAL}), which also loads the script. */
		CompletionStage<T> bySource(RedisClusterAsyncCommands<byte[], byte[]> async) {
			return async.eval(bytes(this.script.getScriptAsString()), this.type, this.keys, this.args);
		}

	}

}
