package io.github.redislock.engine;

import java.time.Duration;

/**
 * Durations as the engine counts them: in milliseconds for Redis and in nanoseconds for
 * local deadlines, without overflow. A longer duration than {@link #LONGEST} counts as
 * that long, so that a wait or lease meant as "for ever", such as
 * {@code Duration.ofSeconds(Long.MAX_VALUE)}, works rather than overflowing.
 *
 * @author redis-lock
 */
final class Durations {

	/**
	 * The longest wait or lease the engine counts: a century, for ever for any process,
	 * and far from overflowing a nanosecond deadline or a Redis expiry.
	 */
	static final Duration LONGEST = Duration.ofDays(36_500);

	private Durations() {
	}

	static long millis(Duration duration) {
		return capped(duration).toMillis();
	}

	static long nanos(Duration duration) {
		return capped(duration).toNanos();
	}

	private static Duration capped(Duration duration) {
		return (duration.compareTo(LONGEST) > 0) ? LONGEST : duration;
	}

}
