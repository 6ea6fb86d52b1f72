package io.github.redislock.observation;

import io.micrometer.observation.Observation.Context;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} for {@link LockObservationDocumentation#HELD lock holds}.
 * Declare a bean of this type to replace {@link DefaultLockHoldObservationConvention}.
 *
 * @author redis-lock
 */
public interface LockHoldObservationConvention extends ObservationConvention<LockHoldContext> {

	@Override
	default boolean supportsContext(Context context) {
		return context instanceof LockHoldContext;
	}

}
