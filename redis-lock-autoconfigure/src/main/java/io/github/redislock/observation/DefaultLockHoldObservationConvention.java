package io.github.redislock.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import io.github.redislock.LockObserver.ReleaseOutcome;
import io.github.redislock.observation.LockObservationDocumentation.HighCardinalityKeyNames;
import io.github.redislock.observation.LockObservationDocumentation.LowCardinalityKeyNames;

/**
 * Default {@link LockHoldObservationConvention}: an observation named
 * {@code redis.lock.held}, tagged with the lock name and the outcome, with the fencing
 * token and, when asked, the key for traces.
 *
 * @author redis-lock
 */
public class DefaultLockHoldObservationConvention implements LockHoldObservationConvention {

	private static final KeyValue OUTCOME_UNKNOWN = LowCardinalityKeyNames.OUTCOME.withValue("unknown");

	private final boolean includeKey;

	/**
	 * Create a convention that leaves the key out.
	 */
	public DefaultLockHoldObservationConvention() {
		this(false);
	}

	/**
	 * Create a convention.
	 * @param includeKey whether to add the key, which may contain ids, as a
	 * high-cardinality key value
	 */
	public DefaultLockHoldObservationConvention(boolean includeKey) {
		this.includeKey = includeKey;
	}

	@Override
	public String getName() {
		return "redis.lock.held";
	}

	@Override
	public String getContextualName(LockHoldContext context) {
		return "held " + context.getLockName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockHoldContext context) {
		ReleaseOutcome outcome = context.getOutcome();
		return KeyValues.of(LowCardinalityKeyNames.LOCK_NAME.withValue(context.getLockName()), (outcome != null)
				? LowCardinalityKeyNames.OUTCOME.withValue(LockOutcomes.value(outcome)) : OUTCOME_UNKNOWN);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockHoldContext context) {
		KeyValues values = KeyValues
			.of(HighCardinalityKeyNames.FENCING_TOKEN.withValue(Long.toString(context.getFencingToken())));
		return this.includeKey ? values.and(HighCardinalityKeyNames.LOCK_KEY.withValue(context.getKey())) : values;
	}

}
