/**
 * Health indicator of redis-lock: whether release messages reach waiting threads.
 */
@NullMarked
package io.github.redislock.health;

import org.jspecify.annotations.NullMarked;
