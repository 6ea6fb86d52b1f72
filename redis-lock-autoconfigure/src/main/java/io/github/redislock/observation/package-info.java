/**
 * Micrometer Observation support for redis-lock: observations of lock acquisitions
 * ({@code redis.lock.acquire}) and of holds ({@code redis.lock.held}), their contexts,
 * conventions and documentation.
 */
@NullMarked
package io.github.redislock.observation;

import org.jspecify.annotations.NullMarked;
