package io.github.redislock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Checks of the arguments users pass, with messages that name the argument.
 *
 * @author redis-lock
 */
final class LockArguments {

	private LockArguments() {
	}

	static String requireKey(@Nullable String key) {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("Lock key must not be " + ((key == null) ? "null" : "blank")
					+ "; give the name of the resource to lock, such as \"order:42\"");
		}
		return key;
	}

	static Duration requireNotNegative(@Nullable Duration duration, String name) {
		if (duration == null || duration.isNegative()) {
			throw new IllegalArgumentException(name + " must be zero or positive but was " + duration);
		}
		return duration;
	}

	static Duration requirePositive(@Nullable Duration duration, String name) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(name + " must be positive but was " + duration);
		}
		return duration;
	}

}
