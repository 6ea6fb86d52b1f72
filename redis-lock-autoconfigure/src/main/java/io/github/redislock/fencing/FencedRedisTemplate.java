package io.github.redislock.fencing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
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
 * <p>
 * Every write is safe to run twice, as Lettuce may run it after a reconnect when its
 * answer was lost. An {@link #increment} records its new value under an id of its own
 * beside the resource's fence for as long as Lettuce may send it again (the command
 * timeout plus a second), so that it counts once.
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

	private final String replayWindowMillis;

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
		this.replayWindowMillis = Long.toString(replayWindowMillis(connectionFactory));
	}

	/**
	 * How long after it was sent a command may still run in Redis: Lettuce sends again,
	 * after a reconnect, the commands whose answers it lacks, but never one that timed
	 * out; a client that never sends again is given Lettuce's default timeout.
	 */
	private static long replayWindowMillis(RedisConnectionFactory connectionFactory) {
		long timeoutMillis = (connectionFactory instanceof LettuceConnectionFactory lettuce) ? lettuce.getTimeout()
				: 60_000;
		return timeoutMillis + 1000;
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

	/**
	 * {@inheritDoc}
	 * <p>
	 * Counts once though Redis runs it twice: the call carries an id of its own, under
	 * which Redis records the counter's new value beside the fence, in the same slot, for
	 * as long as the client may send the call again ({@code fenced-incrby.lua}).
	 */
	@Override
	public long increment(String key, long delta, long token) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return increment(key, delta, token,
				HexFormat.of().toHexDigits(random.nextLong()) + HexFormat.of().toHexDigits(random.nextLong()));
	}

	/**
	 * Add to a counter as one call with the given id: the same call run again, by the
	 * client or by Redis, adds nothing and replies the value the first run did.
	 */
	long increment(String key, long delta, long token, String operation) {
		String fence = FenceKeys.of(key);
		return ((Number) write(FencedScripts.INCREMENT, List.of(key, fence, fence + ":incr:" + operation), token,
				Long.toString(delta), this.replayWindowMillis))
			.longValue();
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
		return write(script, List.of(key, FenceKeys.of(key)), token, values);
	}

	/**
	 * Run a fenced write script on the given keys, the resource first and its fence
	 * second, as {@link #write(RedisScript, String, long, String...)}.
	 */
	@SuppressWarnings("rawtypes")
	private Object write(RedisScript<List> script, List<String> keys, long token, String... values) {
		Assert.isTrue(token >= 0, () -> "The fencing token must not be negative, but was " + token);
		String key = keys.get(0);
		String[] args = new String[values.length + 1];
		args[0] = Long.toString(token);
		System.arraycopy(values, 0, args, 1, values.length);
		List<?> reply = this.redis.execute(script, keys, (Object[]) args);
		if (((Number) reply.get(0)).longValue() == 0) {
			throw new StaleFencingTokenException(key, token, Long.parseLong(reply.get(1).toString()));
		}
		return reply.get(1);
	}

}
