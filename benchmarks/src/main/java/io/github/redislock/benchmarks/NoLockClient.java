package io.github.redislock.benchmarks;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The limit no lock can beat: no lock at all, for a scenario that runs the critical
 * section on one thread only, so that nothing needs excluding. The hot key then measures
 * the critical section alone, one round trip after the other.
 */
final class NoLockClient implements LockClient {

	private static final Release NOTHING = () -> {
	};

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		return NOTHING;
	}

	@Override
	public Release acquireFair(String key) {
		return NOTHING;
	}

	@Override
	public void close() {
	}

}
