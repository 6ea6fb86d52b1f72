/**
 * Auto-configuration of the Spring Integration support: a {@code LockRegistry} of
 * redis-lock's locks when Spring Integration is on the classpath. It imports
 * {@code integration}, the root package, Spring Boot and Spring Integration.
 */
@NullMarked
package io.github.redislock.autoconfigure.integration;

import org.jspecify.annotations.NullMarked;
