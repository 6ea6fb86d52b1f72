package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.ScriptCommands.PreparedCall;

/**
 * Sends many script calls at once without waiting for them, each encoded once for all the
 * times it is sent: the watchdog's renewals, and the releases of a shutdown. Written to
 * the connection together, they cost one system call rather than one each, which is what
 * lets one JVM renew a great many leases a second. A call goes by digest and, when the
 * server lacks the script, by source ({@link ScriptCommands#orBySource}). On a cluster
 * each goes on its own to its slot's node, where Lettuce routes it, follows redirections
 * and never waits for a node's connection.
 *
 * @author redis-lock
 */
final class ScriptBatches {

	private ScriptBatches() {
	}

	/**
	 * Send the calls without waiting.
	 * @param answers told the answer to the call at the same index
	 */
	static <T> void sendAll(RedisClusterAsyncCommands<byte[], byte[]> async, List<PreparedCall<T>> calls,
			List<? extends Answer<T>> answers) {
		if (!(async instanceof RedisAsyncCommands<byte[], byte[]> single)) {
			for (int i = 0; i < calls.size(); i++) {
				CompletionStage<T> sent;
				try {
					sent = calls.get(i).sendOn(async);
				}
				catch (RuntimeException ex) {
					sent = CompletableFuture.failedFuture(ex);
				}
				tell(sent, answers.get(i));
			}
			return;
		}
		List<RedisCommand<byte[], byte[], ?>> commands = new ArrayList<>(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			PreparedCall<T> call = calls.get(i);
			CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(call.sha())
				.add(call.keys().length)
				.addKeys(call.keys())
				.addValues(call.args());
			AsyncCommand<byte[], byte[], T> command = new AsyncCommand<>(
					new Command<>(CommandType.EVALSHA, output(call.type()), args));
			commands.add(command);
			tell(ScriptCommands.orBySource(command, () -> call.bySource(async)), answers.get(i));
		}
		try {
			single.getStatefulConnection().dispatch(commands);
		}
		catch (RuntimeException ex) {
			commands.forEach((command) -> command.completeExceptionally(ex));
		}
	}

	private static <T> void tell(CompletionStage<T> sent, Answer<T> answer) {
		sent.whenComplete((reply, ex) -> answer.answered(reply, (ex != null) ? ScriptCommands.unwrap(ex) : null));
	}

	@SuppressWarnings("unchecked")
	private static <T> CommandOutput<byte[], byte[], T> output(ScriptOutputType type) {
		return (CommandOutput<byte[], byte[], T>) switch (type) {
			case MULTI -> new NestedMultiOutput<>(ByteArrayCodec.INSTANCE);
			default -> new IntegerOutput<>(ByteArrayCodec.INSTANCE);
		};
	}

	/** Told the answer to a script call, or how it failed, once, on Lettuce's thread. */
	interface Answer<T> {

		void answered(@Nullable T reply, @Nullable Throwable failure);

	}

	/** The answers to calls sent together, awaited together. */
	static final class AwaitedAnswers {

		private static final int SUCCEEDED = 1;

		private static final int FAILED = 2;

		private final AtomicIntegerArray outcomes;

		private final CountDownLatch pending;

		AwaitedAnswers(int calls) {
			this.outcomes = new AtomicIntegerArray(calls);
			this.pending = new CountDownLatch(calls);
		}

		/** One answer per call, in the order of the calls. */
		List<Answer<Long>> list() {
			List<Answer<Long>> answers = new ArrayList<>(this.outcomes.length());
			for (int i = 0; i < this.outcomes.length(); i++) {
				int index = i;
				answers.add((reply, failure) -> {
					this.outcomes.set(index, (failure != null) ? FAILED : SUCCEEDED);
					this.pending.countDown();
				});
			}
			return answers;
		}

		/**
		 * Wait until every call is answered or the time is up; an interrupt ends the wait
		 * early and is kept for the caller.
		 */
		void await(long timeoutMillis) {
			try {
				this.pending.await(timeoutMillis, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		/** Whether the call at the index failed, as opposed to not answered yet. */
		boolean failed(int index) {
			return this.outcomes.get(index) == FAILED;
		}

		boolean succeeded(int index) {
			return this.outcomes.get(index) == SUCCEEDED;
		}

	}

}
