/**
 * Support for {@link io.github.redislock.DistributedLock @DistributedLock}: the bean
 * post-processor that applies it, its interceptor, and the key template evaluator.
 */
@NullMarked
package io.github.redislock.annotation;

import org.jspecify.annotations.NullMarked;
