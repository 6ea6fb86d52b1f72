package io.github.redislock.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import io.github.redislock.LockObserver.AcquireOutcome;
import io.github.redislock.observation.LockObservationDocumentation.HighCardinalityKeyNames;
import io.github.redislock.observation.LockObservationDocumentation.LowCardinalityKeyNames;

/**
 * Default {@link LockAcquireObservationConvention}: an observation named
 * {@code redis.lock.acquire}, tagged with the lock name and the outcome, and with the key
 * for traces when asked.
 *
 * @author redis-lock
 */
public class DefaultLockAcquireObservationConvention implements LockAcquireObservationConvention {

	private static final KeyValue OUTCOME_UNKNOWN = LowCardinalityKeyNames.OUTCOME.withValue("unknown");

	private final boolean includeKey;

	/**
	 * Create a convention that leaves the key out.
	 */
	public DefaultLockAcquireObservationConvention() {
		this(false);
	}

	/**
	 * Create a convention.
	 * @param includeKey whether to add the key, which may contain ids, as a
	 * high-cardinality key value
	 */
	public DefaultLockAcquireObservationConvention(boolean includeKey) {
		this.includeKey = includeKey;
	}

	@Override
	public String getName() {
		return "redis.lock.acquire";
	}

	@Override
	public String getContextualName(LockAcquireContext context) {
		return "acquire " + context.getLockName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockAcquireContext context) {
		AcquireOutcome outcome = context.getOutcome();
		return KeyValues.of(LowCardinalityKeyNames.LOCK_NAME.withValue(context.getLockName()), (outcome != null)
				? LowCardinalityKeyNames.OUTCOME.withValue(LockOutcomes.value(outcome)) : OUTCOME_UNKNOWN);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockAcquireContext context) {
		return this.includeKey ? KeyValues.of(HighCardinalityKeyNames.LOCK_KEY.withValue(context.getKey()))
				: KeyValues.empty();
	}

}
