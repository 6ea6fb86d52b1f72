package io.github.redislock.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

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
 * A script is sent as {@link ScriptCall#sendOn} says. The connection is a
 * {@link SharedConnection}: opened at the first call, and after a connection failure
 * obtained again at the next, since the factory may have replaced it.
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
	 * Run a script and wait for its answer; an interrupt ends the wait.
	 * @return the answer: a {@code Long} for an integer script, a {@code List} of them
	 * for a multi-bulk one
	 * @throws RedisCommandInterruptedException when the thread was interrupted before or
	 * while waiting; the script may have run, and its interrupt status is kept
	 * @throws RuntimeException from Lettuce when Redis failed or did not answer in time
	 */
	<T> T execute(ScriptCall<T> call) {
		if (Thread.currentThread().isInterrupted()) {
			throw new RedisCommandInterruptedException(new InterruptedException("Interrupted before sending"));
		}
		return execute(call, true);
	}

	/**
	 * Run a script and wait for its answer even if the thread is interrupted, whose
	 * interrupt status is kept: for a release, which must not be cut short by the
	 * interrupt that often ends the work done under a lock.
	 * @return the answer, as {@link #execute}
	 * @throws RuntimeException from Lettuce when Redis failed or did not answer in time
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
	 * How long after it was sent a command may still run in Redis, and how long a caller
	 * waits for its answer: Lettuce sends again, after a reconnect, the commands whose
	 * answers it lacks, but never one that timed out, which it does after the command
	 * timeout (its default, and Spring Boot's); and a margin in case it does not.
	 */
	long replayWindowMillis() {
		return this.timeoutMillis + ANSWER_MARGIN_MILLIS;
	}

	/**
	 * Run a script without waiting and without ever blocking the calling thread: when the
	 * connection is not open (before the first call, or after a failure dropped it), it
	 * is opened on the given executor, since opening waits for Redis. The answer is
	 * completed on Lettuce's thread.
	 */
	<T> CompletionStage<T> executeWithoutBlocking(ScriptCall<T> call, Executor opener) {
		Opened current = this.connection.now();
		if (current != null) {
			return call.sendOn(current.commands());
		}
		return this.connection.getWithoutBlocking(opener).thenCompose((opened) -> call.sendOn(opened.commands()));
	}

	/** Whether the connection is open, so that a call sent now waits for nothing. */
	boolean isOpen() {
		return this.connection.now() != null;
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
		Opened opened = opened();
		await(opened, opened.commands().eval(call.sourceBytes(), call.outputType(), call.keyBytes(), call.argBytes()),
				0, false);
	}

	/**
	 * Wait until the given number of replicas acknowledged the writes made on this
	 * connection, as {@link #awaitReplicasAsync}.
	 * @return how many replicas acknowledged them
	 */
	long awaitReplicas(String key, int replicas, long timeoutMillis) {
		Long acknowledged = (Long) await(opened(), awaitReplicasAsync(key, replicas, timeoutMillis), timeoutMillis,
				true);
		return (acknowledged != null) ? acknowledged : 0;
	}

	/**
	 * Ask Redis with {@code WAIT} how many replicas acknowledged the writes made on this
	 * connection, without waiting. {@code WAIT} counts the acknowledgements of its own
	 * connection's writes, so on a cluster it runs on the connection to the primary of
	 * the key's slot, which Lettuce routes the slot's writes to and keys by host and
	 * port.
	 * @param key a key the writes touched, which names the primary on a cluster
	 * @return how many replicas acknowledged the writes, at most after the timeout
	 */
	CompletionStage<Long> awaitReplicasAsync(String key, int replicas, long timeoutMillis) {
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
		return target.waitForReplication(replicas, timeoutMillis);
	}

	/** How long a caller waits for an answer at most, as {@link #replayWindowMillis}. */
	long answerTimeoutMillis() {
		return this.timeoutMillis + ANSWER_MARGIN_MILLIS;
	}

	private @Nullable Object await(Opened opened, CompletionStage<?> answer, long extraMillis, boolean interruptible) {
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
			replaceOn(opened, ex.getCause());
			throw asRuntime(ex.getCause());
		}
		catch (TimeoutException ex) {
			RedisCommandTimeoutException timeout = new RedisCommandTimeoutException(
					"Redis did not answer within " + this.timeoutMillis + " ms");
			replaceOn(opened, timeout);
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
		return opened().commands();
	}

	/**
	 * The connection, opened first if need be; even an interrupted thread waits for
	 * another's opening, since a release must not be cut short by an interrupt.
	 */
	private Opened opened() {
		return this.connection.getUninterruptibly();
	}

	@SuppressWarnings("unchecked")
	private Opened open() {
		RedisConnection opened = this.connectionFactory.getConnection();
		Opened current = new Opened(opened, (RedisClusterAsyncCommands<byte[], byte[]>) opened.getNativeConnection());
		// Without waiting: the answer is read on Lettuce's thread.
		this.evictionPolicyCheck.check(current.commands());
		return current;
	}

	/**
	 * Replace the connection after it failed: the factory may have replaced it. Not for
	 * an error Redis answered, nor for a command that timed out on a cluster, which says
	 * nothing of the connections to the other nodes: closing a connection of its own
	 * would fail their commands too.
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

	static boolean isNoScript(Throwable ex) {
		return unwrap(ex) instanceof RedisNoScriptException;
	}

	static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private static RuntimeException asRuntime(@Nullable Throwable ex) {
		return (ex instanceof RuntimeException runtime) ? runtime : new RedisException("Redis failed", ex);
	}

	/** A connection from the factory, with its native commands read once. */
	private record Opened(RedisConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {
	}

}
