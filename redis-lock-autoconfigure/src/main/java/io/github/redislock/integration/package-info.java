/**
 * Spring Integration support: {@code DistributedLockRegistry}, a
 * {@code RenewableLockRegistry} of redis-lock's locks for leader election, aggregators
 * and idempotent receivers. It imports the root package's API ({@code LockOperations},
 * never {@code LockTemplate} nor the engine) and Spring Integration.
 */
@NullMarked
package io.github.redislock.integration;

import org.jspecify.annotations.NullMarked;
