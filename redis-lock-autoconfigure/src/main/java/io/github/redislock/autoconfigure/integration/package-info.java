/**
 * Auto-configuration of the Spring Integration support: a {@code DistributedLockRegistry}
 * on the application's {@code LockOperations} when Spring Integration is on the
 * classpath, unless it defines a {@code LockRegistry}. It imports {@code integration},
 * the root package's {@code LockOperations}, Spring Boot and Spring Integration.
 */
@NullMarked
package io.github.redislock.autoconfigure.integration;

import org.jspecify.annotations.NullMarked;
