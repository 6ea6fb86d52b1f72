package io.github.redislock.benchmarks;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One implementation's way to take and release a lock, as the scenarios see it: one
 * client per JVM, shared by its threads, used the way its documentation shows.
 */
interface LockClient extends AutoCloseable {

	/** How long a benchmark thread waits for a lock before the run is declared broken. */
	Duration WAIT_LIMIT = Duration.ofMinutes(2);

	/**
	 * Take the lock, waiting as long as it takes (up to {@link #WAIT_LIMIT}).
	 * @param key the lock name
	 * @param lease a fixed lease, or {@code null} for the implementation's default
	 * (renewed by a watchdog where it has one)
	 * @return what releases the lock, to be called by the same thread
	 */
	Release acquire(String key, @Nullable Duration lease);

	default Release acquire(String key) {
		return acquire(key, null);
	}

	@Override
	void close();

	/** Releases one acquisition. */
	@FunctionalInterface
	interface Release {

		void release();

	}

}
