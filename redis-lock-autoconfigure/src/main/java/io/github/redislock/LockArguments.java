package io.github.redislock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Checks of the arguments users pass, with messages that name the argument.
 *
 * @author redis-lock
 */
final class LockArguments {

	private static final Duration ONE_MILLISECOND = Duration.ofMillis(1);

	private LockArguments() {
	}

	static String requireKey(@Nullable String key) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("Lock key must not be " + ((key == null) ? "null" : "blank")
					+ "; give the name of the resource to lock, such as \"order:42\"");
		}
		if (key.charAt(0) == '}') {
			throw new IllegalArgumentException("Lock key must not begin with '}' but was \"" + key
					+ "\": the key sits inside a Redis Cluster hash tag, which would be empty and scatter the lock's "
					+ "keys over several slots; put some text before the '}'");
		}
		return key;
	}

	static Duration requireNotNegative(@Nullable Duration duration, String name) {
		if (duration == null || duration.isNegative()) {
			throw new IllegalArgumentException(name + " must be zero or positive but was " + duration);
		}
		return duration;
	}

	/**
	 * Require a duration of at least one millisecond, the unit Redis counts leases and
	 * timeouts in: a shorter one would reach Redis as zero.
	 */
	static Duration requirePositive(@Nullable Duration duration, String name) {
		if (duration == null || duration.compareTo(ONE_MILLISECOND) < 0) {
			throw new IllegalArgumentException(
					name + " must be at least 1 ms (Redis counts it in milliseconds) but was " + duration);
		}
		return duration;
	}

}
