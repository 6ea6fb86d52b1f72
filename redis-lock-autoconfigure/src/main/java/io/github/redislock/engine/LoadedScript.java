package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * A script whose text and digest are read once, when it is made. Spring Data Redis'
 * script computes its digest under a lock at every call, in case its source changed: one
 * of the engine's scripts never does, and a call must not wait for another thread's, on a
 * thread that must not block (a reactive caller's, the Redis client's).
 *
 * @param <T> the script's answer
 * @param text the Lua source
 * @param sha1 its digest, as {@code EVALSHA} takes it
 * @param resultType the type of its answer
 * @author redis-lock
 */
record LoadedScript<T>(String text, String sha1, @Nullable Class<T> resultType) implements RedisScript<T> {

	LoadedScript(RedisScript<T> script) {
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
