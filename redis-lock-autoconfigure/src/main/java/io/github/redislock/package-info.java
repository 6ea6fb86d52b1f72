/**
 * Distributed locks on Redis: {@link io.github.redislock.LockOperations} and its
 * {@link io.github.redislock.LockTemplate}, the {@link io.github.redislock.LockHandle}
 * they return, and the exceptions they throw.
 */
@NullMarked
package io.github.redislock;

import org.jspecify.annotations.NullMarked;
