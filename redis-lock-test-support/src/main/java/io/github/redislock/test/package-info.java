/**
 * Real {@code redis-server} processes and small helpers for tests of redis-lock.
 */
package io.github.redislock.test;
