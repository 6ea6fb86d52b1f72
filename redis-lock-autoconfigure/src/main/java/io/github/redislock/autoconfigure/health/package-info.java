/**
 * Auto-configuration of redis-lock's health indicator.
 */
@NullMarked
package io.github.redislock.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
