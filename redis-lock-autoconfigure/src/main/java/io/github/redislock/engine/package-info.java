/**
 * The Redis engine: {@code RedisLockEngine}, its one public type, implements
 * {@code LockEngine} with atomic Lua scripts (one {@code .lua} resource per operation),
 * owner tokens, pub/sub waiters (threads, and pending futures for acquisitions that block
 * no thread), hand-over within a JVM on a grant Redis confirmed a moment ago
 * ({@code HandOver}) and the renewal watchdog; everything else here is package-private.
 * It imports the root package (the API it implements, the observer it reports to, the
 * exceptions it throws), Spring Data Redis and Lettuce, and no other package of the
 * library.
 */
@NullMarked
package io.github.redislock.engine;

import org.jspecify.annotations.NullMarked;
