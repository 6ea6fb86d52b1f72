/**
 * The flash-sale sample: products with scarce stock in Redis, sold through
 * {@link io.github.redislock.DistributedLock @DistributedLock} and, to show why it
 * matters, without it, and paid through a payment service limited across instances with
 * {@link io.github.redislock.DistributedConcurrencyLimit @DistributedConcurrencyLimit}.
 */
@NullMarked
package io.github.redislock.samples.flashsale;

import org.jspecify.annotations.NullMarked;
