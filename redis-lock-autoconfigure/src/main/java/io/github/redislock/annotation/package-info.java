/**
 * Support for {@code @DistributedLock} and {@code @DistributedConcurrencyLimit}: the bean
 * post-processor that applies them, the interceptor that runs a method under its locks
 * through {@code LockOperations.lock} (or {@code lockAll}), or under a permit, the
 * per-method specs checked at start-up, the key template evaluator, and the AOT processor
 * that registers the reflection hints the key templates need. It imports the root
 * package's API ({@code LockOperations}, never {@code LockTemplate} nor the engine),
 * Spring AOP, beans and expressions.
 */
@NullMarked
package io.github.redislock.annotation;

import org.jspecify.annotations.NullMarked;
