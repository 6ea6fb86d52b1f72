/**
 * Benchmarks of redis-lock against Redisson, Spring Integration and a raw floor, on a
 * private {@code redis-server}; run by {@link io.github.redislock.benchmarks.Benchmarks}.
 */
@NullMarked
package io.github.redislock.benchmarks;

import org.jspecify.annotations.NullMarked;
