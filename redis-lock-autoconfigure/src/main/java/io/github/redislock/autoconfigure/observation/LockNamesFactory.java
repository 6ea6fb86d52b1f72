package io.github.redislock.autoconfigure.observation;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.observation.LockNames;

/**
 * Builds the {@link LockNames} of the {@code redis-lock.observations.id-pattern}
 * property, naming the property when its expression is invalid.
 *
 * @author redis-lock
 */
final class LockNamesFactory {

	private LockNamesFactory() {
	}

	static LockNames lockNames(RedisLockProperties properties) {
		String idPattern = properties.getObservations().getIdPattern();
		if (LockNames.DEFAULT_ID_PATTERN.equals(idPattern)) {
			return LockNames.defaults();
		}
		try {
			return new LockNames(Pattern.compile(idPattern));
		}
		catch (PatternSyntaxException ex) {
			throw new InvalidConfigurationPropertyValueException("redis-lock.observations.id-pattern", idPattern,
					"The id pattern must be a Java regular expression: " + ex.getDescription() + " near index "
							+ ex.getIndex() + ".");
		}
	}

}
