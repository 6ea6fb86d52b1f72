/**
 * Auto-configuration of redis-lock's Actuator endpoint.
 */
@NullMarked
package io.github.redislock.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
