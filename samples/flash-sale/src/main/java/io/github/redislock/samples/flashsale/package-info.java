/**
 * The flash-sale sample: products with scarce stock in Redis, sold through
 * {@link io.github.redislock.DistributedLock @DistributedLock} and, to show why it
 * matters, without it.
 */
@NullMarked
package io.github.redislock.samples.flashsale;

import org.jspecify.annotations.NullMarked;
