/**
 * Spring Boot auto-configuration: the {@code RedisLockEngine} bean (unless the
 * application defines a {@code LockEngine}; it connects and starts its threads at its
 * first lock), the {@code LockTemplate} on it (unless it defines a
 * {@code LockOperations}), with Reactor the {@code ReactiveLockTemplate} (unless it
 * defines a {@code ReactiveLockOperations}), the {@code @DistributedLock} support and the
 * {@code redis-lock.*} properties. Besides {@code engine} itself, the one package that
 * names {@code RedisLockEngine}; it imports the root package, {@code annotation},
 * {@code engine}, Spring Boot and Spring Data Redis.
 */
@NullMarked
package io.github.redislock.autoconfigure;

import org.jspecify.annotations.NullMarked;
