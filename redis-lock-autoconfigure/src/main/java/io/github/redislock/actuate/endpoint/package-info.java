/**
 * Actuator endpoint of redis-lock: the locks an instance holds and waits for.
 */
@NullMarked
package io.github.redislock.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
