/**
 * Micrometer meters for redis-lock: gauges of held locks and waiting threads, counters of
 * renewals and lost locks.
 */
@NullMarked
package io.github.redislock.metrics;

import org.jspecify.annotations.NullMarked;
