package io.github.redislock.benchmarks;

import org.jspecify.annotations.Nullable;

/**
 * One target of redis-lock and where a run found it.
 *
 * @param goal what redis-lock aims for
 * @param measured what the run measured
 * @param met whether the goal was met, {@code null} when it could not be checked
 */
record Target(String goal, String measured, @Nullable Boolean met) {

	String verdict() {
		if (this.met == null) {
			return "not checked";
		}
		return this.met ? "yes" : "**no**";
	}

}
