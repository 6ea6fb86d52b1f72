/**
 * Auto-configuration of redis-lock's Micrometer observations and meters.
 */
@NullMarked
package io.github.redislock.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
