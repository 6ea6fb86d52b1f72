/**
 * Auto-configuration of the Micrometer observations and meters: the observers the engine
 * reports to, and the gauges of the {@code LockEngine} bean's diagnostics. It imports
 * {@code autoconfigure}, {@code observation}, {@code metrics}, the root package's
 * {@code LockEngine} and Micrometer.
 */
@NullMarked
package io.github.redislock.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
