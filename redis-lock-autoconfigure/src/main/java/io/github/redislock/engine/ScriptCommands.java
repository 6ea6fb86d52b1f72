package io.github.redislock.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.engine.ScriptBatches.Answer;
import io.github.redislock.engine.ScriptBatches.PreparedCall;

/**
 * Runs the engine's Lua scripts straight on Lettuce's asynchronous commands of one
 * connection from the factory (its shared connection, unless sharing is off), kept for
 * the engine's life. Sending them through Spring Data's template cost a fifth more time
 * per lock and release than the commands themselves: a connection wrapper, serializers
 * and exception translation per call.
 *
 * <p>
 * A script is sent by digest ({@code EVALSHA}) and, when the server does not know it yet,
 * once more with its source ({@code EVAL}), which also loads it. After a connection
 * failure the connection is obtained again at the next call, since the factory may have
 * replaced it.
 *
 * <p>
 * Many calls sent at once without waiting, the watchdog's renewals, take a path of their
 * own on the same connection: {@link ScriptBatches}.
 *
 * <p>
 * Each connection it opens asks the primaries not asked yet whether they may evict lock
 * keys ({@link EvictionPolicyCheck}).
 *
 * @author redis-lock
 */
final class ScriptCommands implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ScriptCommands.class);

	/** Time allowed for an answer on top of the client's own command timeout. */
	private static final long ANSWER_MARGIN_MILLIS = 1000;

	private final RedisConnectionFactory connectionFactory;

	private final long timeoutMillis;

	private final EvictionPolicyCheck evictionPolicyCheck = new EvictionPolicyCheck();

	/**
	 * Guards opening and closing the connection: a lock rather than a monitor, since
	 * opening waits for Redis, and on JDK 21 to 23 a virtual thread that waits while it
	 * holds a monitor pins its carrier thread.
	 */
	private final ReentrantLock connectionLock = new ReentrantLock();

	private @Nullable RedisConnection connection;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	private volatile boolean closed;

	ScriptCommands(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.timeoutMillis = (connectionFactory instanceof LettuceConnectionFactory lettuce) ? lettuce.getTimeout()
				: 60_000;
	}

	/**
	 * Run a script and wait for its answer; an interrupt ends the wait.
	 * @return the answer: a {@code Long} for an integer script, a {@code List} of them
	 * for a multi-bulk one
	 * @throws RedisCommandInterruptedException when the thread was interrupted before or
	 * while waiting; the script may have run, and its interrupt status is kept
	 * @throws RuntimeException from Lettuce when Redis failed or did not answer in time
	 */
	@SuppressWarnings("unchecked")
	<T> T execute(ScriptCall<T> call) {
		if (Thread.currentThread().isInterrupted()) {
			throw new RedisCommandInterruptedException(new InterruptedException("Interrupted before sending"));
		}
		return (T) await(executeAsync(call), 0, true);
	}

	/**
	 * Run a script and wait for its answer even if the thread is interrupted, whose
	 * interrupt status is kept: for a release, which must not be cut short by the
	 * interrupt that often ends the work done under a lock.
	 * @return the answer, as {@link #execute}
	 * @throws RuntimeException from Lettuce when Redis failed or did not answer in time
	 */
	@SuppressWarnings("unchecked")
	<T> T executeUninterruptibly(ScriptCall<T> call) {
		return (T) await(executeAsync(call), 0, false);
	}

	/**
	 * How long after it was sent a command may still run in Redis: Lettuce sends again,
	 * after a reconnect, the commands whose answers it lacks, but never one that timed
	 * out, which it does after the command timeout (its default, and Spring Boot's).
	 */
	long replayWindowMillis() {
		return this.timeoutMillis + ANSWER_MARGIN_MILLIS;
	}

	/** Run a script without waiting; the answer is completed on Lettuce's thread. */
	<T> CompletionStage<T> executeAsync(ScriptCall<T> call) {
		return executeAsync(commands(), call);
	}

	/**
	 * Run a script without waiting and without ever blocking the calling thread: when the
	 * connection is not open (before the first call, or after a failure dropped it), it
	 * is opened on the given executor, since opening waits for Redis.
	 */
	<T> CompletionStage<T> executeWithoutBlocking(ScriptCall<T> call, Executor opener) {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		if (current != null) {
			return executeAsync(current, call);
		}
		return CompletableFuture.supplyAsync(this::commands, opener)
			.thenCompose((opened) -> executeAsync(opened, call));
	}

	/** Whether the connection is open, so that a call sent now waits for nothing. */
	boolean isOpen() {
		return this.commands != null;
	}

	/** Run a script on the given commands, such as those of a subscription connection. */
	<T> CompletionStage<T> executeAsync(RedisClusterAsyncCommands<byte[], byte[]> async, ScriptCall<T> call) {
		RedisScript<T> script = call.script();
		ScriptOutputType type = call.outputType();
		byte[][] keyBytes = call.keyBytes();
		byte[][] argBytes = call.argBytes();
		CompletionStage<T> digest = async.<T>evalsha(script.getSha1(), type, keyBytes, argBytes);
		return digest
			.handle((answer, ex) -> (ex == null) ? CompletableFuture.completedFuture(answer)
					: isNoScript(ex) ? async.<T>eval(call.sourceBytes(), type, keyBytes, argBytes)
							: CompletableFuture.<T>failedFuture(unwrap(ex)))
			.thenCompose((answer) -> answer);
	}

	/**
	 * Run several scripts without waiting, written to the connection together, as
	 * {@link ScriptBatches#sendAll}.
	 * @throws RuntimeException when the connection could not be opened; then none is told
	 */
	<T> void executeAllAsync(List<PreparedCall<T>> calls, List<? extends Answer<T>> answers) {
		ScriptBatches.sendAll(commands(), calls, answers);
	}

	/**
	 * Whether the connection is to a Redis Cluster, where one script may only touch the
	 * keys of one slot.
	 * @throws RuntimeException when the connection could not be opened
	 */
	boolean isCluster() {
		return !(commands() instanceof RedisAsyncCommands<byte[], byte[]>);
	}

	/**
	 * Run a script by its source, for a call nobody waits on that may reach a server
	 * which restarted since and no longer knows the digest.
	 */
	void executeBySource(ScriptCall<?> call) {
		await(commands().eval(call.sourceBytes(), call.outputType(), call.keyBytes(), call.argBytes()), 0, false);
	}

	/**
	 * Wait until the given number of replicas acknowledged the writes made on this
	 * connection (Redis {@code WAIT}), which must be the connection that made them.
	 * @return how many replicas acknowledged them
	 */
	long awaitReplicas(String key, int replicas, long timeoutMillis) {
		Long acknowledged = (Long) await(ReplicaAcknowledgements.waitFor(commands(), key, replicas, timeoutMillis),
				timeoutMillis, true);
		return (acknowledged != null) ? acknowledged : 0;
	}

	/** The client's command timeout. */
	long commandTimeoutMillis() {
		return this.timeoutMillis;
	}

	/**
	 * How long a caller waits for an answer at most: the client's command timeout, after
	 * which Lettuce fails the command, and a margin in case it does not.
	 */
	long answerTimeoutMillis() {
		return this.timeoutMillis + ANSWER_MARGIN_MILLIS;
	}

	private @Nullable Object await(CompletionStage<?> answer, long extraMillis, boolean interruptible) {
		CompletableFuture<?> future = answer.toCompletableFuture();
		long deadline = System.nanoTime()
				+ TimeUnit.MILLISECONDS.toNanos(this.timeoutMillis + extraMillis + ANSWER_MARGIN_MILLIS);
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						Thread.currentThread().interrupt();
						throw new RedisCommandInterruptedException(ex);
					}
					interrupted = true;
				}
			}
		}
		catch (ExecutionException ex) {
			forgetOn(ex.getCause());
			throw asRuntime(ex.getCause());
		}
		catch (TimeoutException ex) {
			RedisCommandTimeoutException timeout = new RedisCommandTimeoutException(
					"Redis did not answer within " + this.timeoutMillis + " ms");
			forgetOn(timeout);
			throw timeout;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Lettuce's asynchronous commands of the engine's connection, opened at the first
	 * use.
	 */
	RedisClusterAsyncCommands<byte[], byte[]> commands() {
		// Every script call comes here: no lock once the connection is open.
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		return (current != null) ? current : open();
	}

	@SuppressWarnings("unchecked")
	private RedisClusterAsyncCommands<byte[], byte[]> open() {
		this.connectionLock.lock();
		try {
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
			// Without waiting: the answer is read on Lettuce's thread.
			this.evictionPolicyCheck.check(current);
			return current;
		}
		finally {
			this.connectionLock.unlock();
		}
	}

	/**
	 * Drop the connection after it failed: the factory may have replaced it. Not for a
	 * command that timed out on a cluster, which says nothing of the connections to the
	 * other nodes: closing a connection of its own would fail their commands too.
	 */
	private void forgetOn(@Nullable Throwable failure) {
		if (failure instanceof RedisCommandExecutionException || (failure instanceof RedisCommandTimeoutException
				&& this.commands instanceof RedisAdvancedClusterAsyncCommands)) {
			return;
		}
		forget();
	}

	private void forget() {
		this.connectionLock.lock();
		try {
			this.commands = null;
			closeConnection();
		}
		finally {
			this.connectionLock.unlock();
		}
	}

	private void closeConnection() {
		RedisConnection current = this.connection;
		this.connection = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not close the engine's connection", ex);
			}
		}
	}

	@Override
	public void close() {
		this.connectionLock.lock();
		try {
			this.closed = true;
			this.commands = null;
			closeConnection();
		}
		finally {
			this.connectionLock.unlock();
		}
	}

	static boolean isNoScript(Throwable ex) {
		return unwrap(ex) instanceof RedisNoScriptException;
	}

	static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private static RuntimeException asRuntime(@Nullable Throwable ex) {
		return (ex instanceof RuntimeException runtime) ? runtime : new RedisException("Redis failed", ex);
	}

}
