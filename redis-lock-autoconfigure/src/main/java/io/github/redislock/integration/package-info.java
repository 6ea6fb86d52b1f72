/**
 * Spring Integration support: a {@code LockRegistry} of redis-lock's locks, for leader
 * election, aggregators and idempotent receivers. It imports the root package only.
 */
@NullMarked
package io.github.redislock.integration;

import org.jspecify.annotations.NullMarked;
