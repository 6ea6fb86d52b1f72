/**
 * Micrometer meters: gauges of held locks and waiting threads read from a
 * {@code LockDiagnostics}, and a {@code LockObserver} that counts renewals and lost
 * locks. It imports the root package's diagnostics and observer SPI, {@code observation}
 * for lock names, and Micrometer.
 */
@NullMarked
package io.github.redislock.metrics;

import org.jspecify.annotations.NullMarked;
