package io.github.redislock.observation;

import io.micrometer.observation.Observation.Context;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} for {@link LockObservationDocumentation#ACQUIRE lock
 * acquisitions}. Declare a bean of this type to replace
 * {@link DefaultLockAcquireObservationConvention}.
 *
 * @author redis-lock
 */
public interface LockAcquireObservationConvention extends ObservationConvention<LockAcquireContext> {

	@Override
	default boolean supportsContext(Context context) {
		return context instanceof LockAcquireContext;
	}

}
