/**
 * The Actuator endpoint {@code redislocks}: the locks an instance holds and waits for,
 * read from a {@code LockDiagnostics} snapshot. It imports the root package's diagnostics
 * and Spring Boot Actuator's endpoint API.
 */
@NullMarked
package io.github.redislock.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
