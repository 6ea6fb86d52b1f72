/**
 * Fenced writes: resources that refuse a write whose
 * {@linkplain io.github.redislock.LockHandle#fencingToken() fencing token} is lower than
 * the highest they have seen, so that a lock holder that paused past its lease cannot
 * overwrite its successor's work. {@link io.github.redislock.fencing.FencedRedisTemplate}
 * writes Redis values, hash fields and counters, each in one Lua script;
 * {@link io.github.redislock.fencing.FencedJdbc} updates table rows through Spring's
 * {@code JdbcClient}. Types here use the root API ({@code io.github.redislock}), Spring
 * Data Redis and Spring JDBC (optional, needed only by {@code FencedJdbc}), never the
 * lock engine: a fenced write needs a token, not a lock.
 */
@NullMarked
package io.github.redislock.fencing;

import org.jspecify.annotations.NullMarked;
