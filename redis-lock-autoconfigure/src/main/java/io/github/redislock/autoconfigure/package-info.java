/**
 * Spring Boot auto-configuration of redis-lock: the {@code LockTemplate}, the
 * {@code @DistributedLock} support and the {@code redis-lock.*} properties.
 */
@NullMarked
package io.github.redislock.autoconfigure;

import org.jspecify.annotations.NullMarked;
