/**
 * Micrometer Observation support: a {@code LockObserver} that records lock acquisitions
 * ({@code redis.lock.acquire}) and holds ({@code redis.lock.held}) as observations, with
 * their contexts, conventions and documentation. It imports the root package's observer
 * SPI and Micrometer.
 */
@NullMarked
package io.github.redislock.observation;

import org.jspecify.annotations.NullMarked;
