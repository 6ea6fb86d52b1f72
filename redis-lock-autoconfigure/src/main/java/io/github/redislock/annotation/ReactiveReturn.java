package io.github.redislock.annotation;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ReactiveAdapter;

/**
 * How a {@link io.github.redislock.DistributedLock @DistributedLock} method returns its
 * work as a publisher, which the locks are held for from subscription to termination.
 *
 * @param adapter converts the method's reactive type (a {@code Mono}, a {@code Flux}, a
 * Kotlin {@code Flow}, any type the {@code ReactiveAdapterRegistry} knows) to and from a
 * Reactive Streams {@code Publisher}; {@code null} for a Kotlin suspending function,
 * which Spring's proxy invokes as a {@code Mono} (or, for a {@code Flow}, a {@code Flux})
 * and adapts back itself
 * @param multiValue whether the publisher emits any number of values (a {@code Flux}),
 * rather than at most one (a {@code Mono})
 * @author redis-lock
 */
record ReactiveReturn(@Nullable ReactiveAdapter adapter, boolean multiValue) {

}
