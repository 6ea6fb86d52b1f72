/**
 * The one-command demo: two instances of the sample, one Redis, thousands of concurrent
 * purchases with and without the lock, and a table of the outcome.
 */
@NullMarked
package io.github.redislock.samples.flashsale.demo;

import org.jspecify.annotations.NullMarked;
