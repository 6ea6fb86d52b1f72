/**
 * The Redis lock engine: atomic Lua scripts, owner tokens, pub/sub waiters and the
 * renewal watchdog. {@link io.github.redislock.LockTemplate} is its public face; types
 * here are public only so that the template and the auto-configuration can reach them.
 */
@NullMarked
package io.github.redislock.engine;

import org.jspecify.annotations.NullMarked;
