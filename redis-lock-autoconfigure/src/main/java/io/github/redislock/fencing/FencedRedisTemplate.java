package io.github.redislock.fencing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

import io.github.redislock.StaleFencingTokenException;

/**
 * The standard {@link FencedRedisOperations}: fenced writes of UTF-8 strings through a
 * Spring Data Redis {@link RedisConnectionFactory}, on a single Redis, Sentinel or
 * Cluster. A holder passes its lock's token with every write to the resource the lock
 * protects:
 *
 * <pre class="code">
 * try (LockHandle lock = lockTemplate.lock("product:" + id)) {
 *     long stock = Long.parseLong(redis.opsForValue().get("stock:" + id));
 *     fenced.set("stock:" + id, Long.toString(stock - 1), lock.fencingToken());
 * }
 * </pre>
 *
 * If the holder paused past its lease and another holder wrote {@code stock:7} since, the
 * {@code set} throws {@link StaleFencingTokenException} and leaves the newer stock alone.
 * Thread-safe; it holds no connection of its own, so there is nothing to close.
 *
 * @author redis-lock
 */
public class FencedRedisTemplate implements FencedRedisOperations {

	/**
	 * How long the fence of a deleted resource is kept by default: one hour.
	 */
	public static final Duration DEFAULT_DELETED_FENCE_RETENTION = Duration.ofHours(1);

	private final StringRedisTemplate redis;

	private final String deletedFenceRetentionMillis;

	/**
	 * Create a template that keeps the fence of a deleted resource for
	 * {@linkplain #DEFAULT_DELETED_FENCE_RETENTION an hour}.
	 * @param connectionFactory the connection factory, started
	 */
	public FencedRedisTemplate(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_DELETED_FENCE_RETENTION);
	}

	/**
	 * Create a template that keeps the fence of a deleted resource for the given time: a
	 * holder paused for longer than that after the delete may write the resource back.
	 * @param connectionFactory the connection factory, started
	 * @param deletedFenceRetention how long a deleted resource's fence is kept, at least
	 * one millisecond
	 * @throws IllegalArgumentException when the retention is under a millisecond
	 */
	public FencedRedisTemplate(RedisConnectionFactory connectionFactory, Duration deletedFenceRetention) {
		Assert.isTrue(deletedFenceRetention.toMillis() > 0, "The deleted fence retention must be at least 1 ms");
		this.redis = new StringRedisTemplate(connectionFactory);
		this.deletedFenceRetentionMillis = Long.toString(deletedFenceRetention.toMillis());
	}

	@Override
	public void set(String key, String value, long token) {
		write(FencedScripts.SET, key, token, value, "0");
	}

	@Override
	public void set(String key, String value, Duration timeToLive, long token) {
		Assert.isTrue(timeToLive.toMillis() > 0, "The time to live must be at least 1 ms");
		write(FencedScripts.SET, key, token, value, Long.toString(timeToLive.toMillis()));
	}

	@Override
	public void putAll(String key, Map<String, String> fields, long token) {
		Assert.notEmpty(fields, "At least one field must be given");
		List<String> pairs = new ArrayList<>(fields.size() * 2);
		fields.forEach((field, value) -> {
			pairs.add(field);
			pairs.add(value);
		});
		write(FencedScripts.PUT, key, token, pairs.toArray(String[]::new));
	}

	@Override
	public long increment(String key, long delta, long token) {
		return ((Number) write(FencedScripts.INCREMENT, key, token, Long.toString(delta))).longValue();
	}

	@Override
	public boolean delete(String key, long token) {
		return ((Number) write(FencedScripts.DELETE, key, token, this.deletedFenceRetentionMillis)).longValue() == 1;
	}

	/**
	 * Run a fenced write script, which replies {@code {1, result}} when it wrote and
	 * {@code {0, highest token}} when it refused.
	 * @return the result of the write
	 */
	@SuppressWarnings("rawtypes")
	private Object write(RedisScript<List> script, String key, long token, String... values) {
		Assert.isTrue(token >= 0, () -> "The fencing token must not be negative, but was " + token);
		String[] args = new String[values.length + 1];
		args[0] = Long.toString(token);
		System.arraycopy(values, 0, args, 1, values.length);
		List<?> reply = this.redis.execute(script, List.of(key, FenceKeys.of(key)), (Object[]) args);
		if (((Number) reply.get(0)).longValue() == 0) {
			throw new StaleFencingTokenException(key, token, Long.parseLong(reply.get(1).toString()));
		}
		return reply.get(1);
	}

}
