package io.github.redislock.engine;

import java.util.List;

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

}
