/**
 * Auto-configuration of redis-lock's fenced writes to Redis.
 */
@NullMarked
package io.github.redislock.autoconfigure.fencing;

import org.jspecify.annotations.NullMarked;
