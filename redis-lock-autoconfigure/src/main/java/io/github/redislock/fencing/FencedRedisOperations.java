package io.github.redislock.fencing;

import java.time.Duration;
import java.util.Map;

import io.github.redislock.StaleFencingTokenException;

/**
 * Writes to Redis that take effect only when the writer's fencing token is not lower than
 * the highest token the resource has seen, implemented by {@link FencedRedisTemplate}.
 * Each write is one atomic Lua script that checks the token, writes, and records the
 * token as the resource's highest. A lower token means the writer's lock was lost and
 * granted to another holder since: the write is refused with a
 * {@link StaleFencingTokenException}. An equal token is the same grant writing again, and
 * is allowed.
 *
 * <p>
 * A resource is one Redis key. Its highest token lives in a sibling key in the same Redis
 * Cluster slot ({@code key:fence} when the key has a hash tag, else {@code {key}:fence})
 * and expires with the resource, so fences take memory per resource, not per grant. Write
 * a resource only through these methods, or its fence falls out of step with it.
 *
 * @author redis-lock
 * @see io.github.redislock.LockHandle#fencingToken()
 */
public interface FencedRedisOperations {

	/**
	 * Set a string value, like {@code SET}, removing any time to live the key had; its
	 * fence then never expires either.
	 * @param key the resource's key
	 * @param value the value
	 * @param token the writer's fencing token, not negative
	 * @throws StaleFencingTokenException when the token is lower than the highest the
	 * resource has seen; nothing was written
	 * @throws IllegalArgumentException when the token is negative, or the key cannot
	 * share a slot with its fence (a {@code '}'} outside a hash tag)
	 * @throws org.springframework.dao.DataAccessException when Redis failed
	 */
	void set(String key, String value, long token);

	/**
	 * Set a string value that expires, like {@code SET key value PX ttl}. Its fence
	 * expires with it: once the value expired, the resource starts afresh and accepts any
	 * token, since there is nothing left for a stale write to overwrite.
	 * @param key the resource's key
	 * @param value the value
	 * @param timeToLive how long the value lives, at least one millisecond
	 * @param token the writer's fencing token, not negative
	 * @throws StaleFencingTokenException when the token is lower than the highest the
	 * resource has seen; nothing was written
	 * @throws IllegalArgumentException when the token is negative, the time to live under
	 * a millisecond, or the key cannot share a slot with its fence
	 * @throws org.springframework.dao.DataAccessException when Redis failed
	 */
	void set(String key, String value, Duration timeToLive, long token);

	/**
	 * Set one field of a hash, like {@code HSET}. The hash keeps its time to live, and
	 * its fence takes the same.
	 * @param key the hash's key: the resource
	 * @param field the field
	 * @param value the field's value
	 * @param token the writer's fencing token, not negative
	 * @throws StaleFencingTokenException when the token is lower than the highest the
	 * hash has seen; nothing was written
	 * @throws IllegalArgumentException when the token is negative, or the key cannot
	 * share a slot with its fence
	 * @throws org.springframework.dao.DataAccessException when Redis failed, or the key
	 * holds another type than a hash
	 */
	default void put(String key, String field, String value, long token) {
		putAll(key, Map.of(field, value), token);
	}

	/**
	 * Set several fields of a hash at once, like {@code HSET} with several pairs. The
	 * hash keeps its time to live, and its fence takes the same.
	 * @param key the hash's key: the resource
	 * @param fields the fields and their values, at least one
	 * @param token the writer's fencing token, not negative
	 * @throws StaleFencingTokenException when the token is lower than the highest the
	 * hash has seen; nothing was written
	 * @throws IllegalArgumentException when the token is negative, no field is given, or
	 * the key cannot share a slot with its fence
	 * @throws org.springframework.dao.DataAccessException when Redis failed, or the key
	 * holds another type than a hash
	 */
	void putAll(String key, Map<String, String> fields, long token);

	/**
	 * Add to a counter, like {@code INCRBY}; a missing counter starts at 0. The counter
	 * keeps its time to live, and its fence takes the same. Counts once even when Redis
	 * runs the call twice (Lettuce sends a command again after a reconnect when its
	 * answer was lost): {@link FencedRedisTemplate} records each call's new value, for as
	 * long as the client may send it again, under an id of the call's own.
	 * @param key the counter's key: the resource
	 * @param delta the amount to add, negative to subtract
	 * @param token the writer's fencing token, not negative
	 * @return the counter's new value
	 * @throws StaleFencingTokenException when the token is lower than the highest the
	 * counter has seen; nothing was written
	 * @throws IllegalArgumentException when the token is negative, or the key cannot
	 * share a slot with its fence
	 * @throws org.springframework.dao.DataAccessException when Redis failed, the value is
	 * not an integer or the sum would overflow; nothing was written
	 */
	long increment(String key, long delta, long token);

	/**
	 * Delete a resource, like {@code DEL}. Its fence outlives it for a while (an hour
	 * with {@link FencedRedisTemplate}'s default), so that a holder paused for less than
	 * that cannot write the deleted resource back.
	 * @param key the resource's key
	 * @param token the writer's fencing token, not negative
	 * @return whether the resource existed
	 * @throws StaleFencingTokenException when the token is lower than the highest the
	 * resource has seen; nothing was deleted
	 * @throws IllegalArgumentException when the token is negative, or the key cannot
	 * share a slot with its fence
	 * @throws org.springframework.dao.DataAccessException when Redis failed
	 */
	boolean delete(String key, long token);

}
