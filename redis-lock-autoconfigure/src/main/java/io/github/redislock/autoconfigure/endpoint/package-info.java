/**
 * Auto-configuration of the Actuator endpoint, for the {@code LockEngine} bean. It
 * imports {@code autoconfigure}, {@code actuate.endpoint}, the root package's
 * {@code LockEngine} and Spring Boot Actuator's auto-configuration.
 */
@NullMarked
package io.github.redislock.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
