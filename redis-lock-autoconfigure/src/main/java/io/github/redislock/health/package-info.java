/**
 * The health indicator: whether release messages reach waiting threads, read from a
 * {@code LockDiagnostics}. It imports the root package's diagnostics and Spring Boot's
 * health API, nothing of the engine or the template.
 */
@NullMarked
package io.github.redislock.health;

import org.jspecify.annotations.NullMarked;
