package io.github.redislock.fencing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The fenced write scripts, one per operation ({@code fenced-*.lua} beside this class),
 * each with {@code fence.lua} in front: Redis scripts cannot include one another, and
 * every write checks and records its token alike.
 *
 * @author redis-lock
 */
@SuppressWarnings("rawtypes")
final class FencedScripts {

	static final RedisScript<List> SET = script("fenced-set.lua");

	static final RedisScript<List> PUT = script("fenced-hset.lua");

	static final RedisScript<List> INCREMENT = script("fenced-incrby.lua");

	static final RedisScript<List> DELETE = script("fenced-delete.lua");

	private FencedScripts() {
	}

	private static RedisScript<List> script(String name) {
		return RedisScript.of(text("fence.lua") + text(name), List.class);
	}

	private static String text(String name) {
		ClassPathResource resource = new ClassPathResource(name, FencedScripts.class);
		try {
			return resource.getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the fenced write script " + resource, ex);
		}
	}

}
