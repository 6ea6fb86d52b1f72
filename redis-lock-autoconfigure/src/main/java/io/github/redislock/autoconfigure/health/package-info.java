/**
 * Auto-configuration of the health indicator, one for each {@code LockEngine} bean. It
 * imports {@code autoconfigure}, {@code health}, the root package's {@code LockEngine}
 * and Spring Boot's health auto-configuration.
 */
@NullMarked
package io.github.redislock.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
