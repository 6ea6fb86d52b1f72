/**
 * The embedded default: a Redis started for the application when none answers at the
 * configured address.
 */
@NullMarked
package io.github.redislock.samples.flashsale.embedded;

import org.jspecify.annotations.NullMarked;
