/**
 * Auto-configuration of the fenced writes to Redis: one {@code FencedRedisTemplate} on
 * the application's {@code RedisConnectionFactory}, unless it defines a
 * {@code FencedRedisOperations}. It imports {@code fencing}, Spring Boot and Spring Data
 * Redis.
 */
@NullMarked
package io.github.redislock.autoconfigure.fencing;

import org.jspecify.annotations.NullMarked;
