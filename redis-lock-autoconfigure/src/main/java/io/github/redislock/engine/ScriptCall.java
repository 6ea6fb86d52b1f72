package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One call of a Lua script: the script with its {@code KEYS} and {@code ARGV}, and how it
 * is sent. The lock kind that owns a script builds its calls in one place, whether the
 * call is then awaited, sent without waiting, sent by its source or encoded once for many
 * renewals, so that the argument list a script's opening comment describes is written
 * down once.
 *
 * @param <T> the script's answer
 * @param script the script
 * @param keys its {@code KEYS}
 * @param args its {@code ARGV}
 * @author redis-lock
 */
record ScriptCall<T>(RedisScript<T> script, List<String> keys, List<String> args) {

	static <T> ScriptCall<T> of(RedisScript<T> script, List<String> keys, String... args) {
		return new ScriptCall<>(script, keys, List.of(args));
	}

	/**
	 * Send the call on the given commands without waiting: by digest ({@code EVALSHA})
	 * and, when the server does not know the script yet, once more with its source
	 * ({@code EVAL}), which also loads it.
	 * @return the answer, completed on Lettuce's thread
	 */
	CompletionStage<T> sendOn(RedisClusterAsyncCommands<byte[], byte[]> async) {
		ScriptOutputType type = outputType();
		byte[][] keyBytes = keyBytes();
		byte[][] argBytes = argBytes();
		CompletionStage<T> digest = async.<T>evalsha(this.script.getSha1(), type, keyBytes, argBytes);
		return digest
			.handle((answer, ex) -> (ex == null) ? CompletableFuture.completedFuture(answer)
					: ScriptCommands.isNoScript(ex) ? async.<T>eval(sourceBytes(), type, keyBytes, argBytes)
							: CompletableFuture.<T>failedFuture(ScriptCommands.unwrap(ex)))
			.thenCompose((answer) -> answer);
	}

	/** The keys as sent: UTF-8. */
	byte[][] keyBytes() {
		return bytes(this.keys);
	}

	/** The arguments as sent: UTF-8. */
	byte[][] argBytes() {
		return bytes(this.args);
	}

	/** The script's source as sent, by {@code EVAL}. */
	byte[] sourceBytes() {
		return bytes(this.script.getScriptAsString());
	}

	/** How Lettuce decodes the answer: a list for a list script, else an integer. */
	ScriptOutputType outputType() {
		Class<?> type = this.script.getResultType();
		return (type != null && List.class.isAssignableFrom(type)) ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[][] bytes(List<String> values) {
		byte[][] bytes = new byte[values.size()][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = bytes(values.get(i));
		}
		return bytes;
	}

	/**
	 * A script whose text and digest are read once, when it is made. Spring Data Redis'
	 * script computes its digest under a lock at every call, in case its source changed:
	 * one of the engine's scripts never does, and a call must not wait for another
	 * thread's, on a thread that must not block (a reactive caller's, the Redis
	 * client's).
	 *
	 * @param <T> the script's answer
	 * @param text the Lua source
	 * @param sha1 its digest, as {@code EVALSHA} takes it
	 * @param resultType the type of its answer
	 */
	record Loaded<T>(String text, String sha1, @Nullable Class<T> resultType) implements RedisScript<T> {

		Loaded(RedisScript<T> script) {
			this(script.getScriptAsString(), script.getSha1(), script.getResultType());
		}

		@Override
		public String getSha1() {
			return this.sha1;
		}

		@Override
		public @Nullable Class<T> getResultType() {
			return this.resultType;
		}

		@Override
		public String getScriptAsString() {
			return this.text;
		}

	}

}
