package io.github.redislock.engine;

import java.util.List;

/**
 * Outcome of one acquire script, of any lock kind: each replies {@code {1, token}} or the
 * bare token when granted, and {@code {0, ms}} when not.
 *
 * @param granted whether the lock was granted
 * @param fencingToken the token of the grant, when granted
 * @param holderLeaseMillis when not granted, how long the caller may sleep at most: the
 * holder's lease left, or less when a line ends sooner; -1 when unknown
 * @param replicas how many replicas acknowledged the grant, when asked
 * @author redis-lock
 */
record Attempt(boolean granted, long fencingToken, long holderLeaseMillis, long replicas) {

	/** The attempt an acquire script's reply tells. */
	static Attempt of(List<?> reply) {
		if (reply.size() == 1) {
			return granted(((Number) reply.get(0)).longValue());
		}
		long value = ((Number) reply.get(1)).longValue();
		return (((Number) reply.get(0)).longValue() == 1) ? granted(value) : heldFor(value);
	}

	static Attempt granted(long fencingToken) {
		return new Attempt(true, fencingToken, 0, 0);
	}

	static Attempt heldFor(long holderLeaseMillis) {
		return new Attempt(false, 0, holderLeaseMillis, 0);
	}

	Attempt acknowledgedBy(long replicas) {
		return new Attempt(this.granted, this.fencingToken, this.holderLeaseMillis, replicas);
	}

}
