/**
 * The API and its seam to the engine: {@code LockOperations} and its
 * {@code LockTemplate}, {@code LockRequest}, {@code LockOptions}, {@code LockHandle},
 * {@code LockGroup}, {@code @DistributedLock}, {@code CurrentLock} and the exceptions;
 * {@code ReactiveLockOperations} and its {@code ReactiveLockTemplate}, with
 * {@code ReactiveCurrentLock}, for Reactor's {@code Mono} and {@code Flux};
 * {@code LockRules}, the one place where the rules of keys and options are written;
 * {@code LockEngine}, all that the template needs of an engine, with its
 * {@code LockDiagnostics} ({@code LockSnapshot}, {@code SubscriptionStatus}); and the
 * {@code LockObserver} SPI that metrics and traces implement. It imports the JDK,
 * JSpecify, Spring Framework's core, Commons Logging (the {@code Lock} adapter warns of a
 * lost lock) and, for the reactive types only, Reactor, and nothing of its sub-packages:
 * no class here names the engine, which {@code PackageDependencyTests} checks.
 */
@NullMarked
package io.github.redislock;

import org.jspecify.annotations.NullMarked;
