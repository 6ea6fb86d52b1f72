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

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends many script calls at once without waiting for them, each encoded once for all the
 * times it is sent: the watchdog's renewals, and the shutdown's releases, whose answers
 * it awaits together ({@link BatchAnswers}). Written to the connection together, they
 * cost one system call rather than one each, which is what lets one JVM renew a great
 * many leases a second; Lettuce's per-command path stays for every other call
 * ({@link ScriptCommands}).
 *
 * <p>
 * A call goes by digest ({@code EVALSHA}) and, when the server does not know the script,
 * once more with its source, whose answer is passed on instead. On a cluster each goes on
 * its own to its slot's node, where Lettuce routes it, follows redirections and never
 * waits for a node's connection.
 *
 * @author redis-lock
 */
final class ScriptBatches {

	private ScriptBatches() {
	}

	/** Encode a script call once, for a call sent again and again. */
	static <T> PreparedCall<T> prepare(ScriptCall<T> call) {
		return new PreparedCall<>(call.script(), call.outputType(), ScriptCall.bytes(call.script().getSha1()),
				call.keyBytes(), call.argBytes());
	}

	/**
	 * Send the calls without waiting.
	 * @param async the commands of the connection to send them on
	 * @param answers told the answer to the call at the same index, or how it failed,
	 * once each, on Lettuce's thread
	 */
	static <T> void sendAll(RedisClusterAsyncCommands<byte[], byte[]> async, List<PreparedCall<T>> calls,
			List<? extends Answer<T>> answers) {
		if (!(async instanceof RedisAsyncCommands<byte[], byte[]> single)) {
			for (int i = 0; i < calls.size(); i++) {
				PreparedCall<T> call = calls.get(i);
				CompletionStage<T> byDigest;
				try {
					byDigest = async.evalsha(call.script().getSha1(), call.type(), call.keys(), call.args());
				}
				catch (RuntimeException ex) {
					byDigest = CompletableFuture.failedFuture(ex);
				}
				answerBySource(async, call, byDigest, answers.get(i));
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
			answerBySource(async, call, command, answers.get(i));
		}
		try {
			single.getStatefulConnection().dispatch(commands);
		}
		catch (RuntimeException ex) {
			commands.forEach((command) -> command.completeExceptionally(ex));
		}
	}

	/**
	 * Pass on the answer to a call sent by digest, or the answer to the same call sent
	 * with its source when the server did not know the digest.
	 */
	private static <T> void answerBySource(RedisClusterAsyncCommands<byte[], byte[]> async, PreparedCall<T> call,
			CompletionStage<T> byDigest, Answer<T> answer) {
		byDigest.whenComplete((reply, ex) -> {
			if (ex != null && ScriptCommands.isNoScript(ex)) {
				async
					.<T>eval(ScriptCall.bytes(call.script().getScriptAsString()), call.type(), call.keys(), call.args())
					.whenComplete((loaded, failure) -> answer.answered(loaded,
							(failure != null) ? ScriptCommands.unwrap(failure) : null));
			}
			else {
				answer.answered(reply, (ex != null) ? ScriptCommands.unwrap(ex) : null);
			}
		});
	}

	@SuppressWarnings("unchecked")
	private static <T> CommandOutput<byte[], byte[], T> output(ScriptOutputType type) {
		return (CommandOutput<byte[], byte[], T>) switch (type) {
			case MULTI -> new NestedMultiOutput<>(ByteArrayCodec.INSTANCE);
			default -> new IntegerOutput<>(ByteArrayCodec.INSTANCE);
		};
	}

	/**
	 * Told the answer to a script call.
	 *
	 * @param <T> the script's answer
	 */
	interface Answer<T> {

		/**
		 * The call was answered, or failed.
		 * @param reply the answer, when it did not fail
		 * @param failure how it failed, or {@code null}
		 */
		void answered(@Nullable T reply, @Nullable Throwable failure);

	}

	/**
	 * A script call encoded for the wire.
	 *
	 * @param <T> the script's answer
	 */
	record PreparedCall<T>(RedisScript<T> script, ScriptOutputType type, byte[] sha, byte[][] keys, byte[][] args) {
	}

	/**
	 * The answers to calls sent together, awaited together: which of them Redis answered
	 * without failing.
	 */
	static final class BatchAnswers {

		private static final int SUCCEEDED = 1;

		private static final int FAILED = 2;

		private final AtomicIntegerArray outcomes;

		private final CountDownLatch pending;

		BatchAnswers(int calls) {
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

		/** Whether the call at the index failed, as opposed to was not answered yet. */
		boolean failed(int index) {
			return this.outcomes.get(index) == FAILED;
		}

		/** Whether the call at the index was answered without failing. */
		boolean succeeded(int index) {
			return this.outcomes.get(index) == SUCCEEDED;
		}

	}

}
