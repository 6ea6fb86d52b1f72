package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.ScriptOutputType;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One call of a Lua script: the script with its {@code KEYS} and {@code ARGV}. The lock
 * kind that owns a script builds its calls in one place, whether the call is then
 * awaited, sent without waiting, sent by its source or encoded once for many renewals, so
 * that the argument list a script's opening comment describes is written down once.
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

}
