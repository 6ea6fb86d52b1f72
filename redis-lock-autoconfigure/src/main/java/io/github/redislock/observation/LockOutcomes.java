package io.github.redislock.observation;

import java.util.Locale;

/**
 * Tag values of the outcomes: lower case, words joined by {@code -}.
 *
 * @author redis-lock
 */
final class LockOutcomes {

	private LockOutcomes() {
	}

	static String value(Enum<?> outcome) {
		return outcome.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
