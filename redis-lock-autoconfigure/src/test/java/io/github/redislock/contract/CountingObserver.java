package io.github.redislock.contract;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockObserver;

/**
 * Counts, per lock name, the renewals and losses an engine reports, so that tests can
 * tell a lock the watchdog keeps renewing from one it was told it lost.
 */
public final class CountingObserver implements LockObserver {

	private final ConcurrentHashMap<String, AtomicInteger> renewals = new ConcurrentHashMap<>();

	private final ConcurrentHashMap<String, AtomicInteger> losses = new ConcurrentHashMap<>();

	@Override
	public void renewed(String key, @Nullable Object holdContext) {
		count(this.renewals, key).incrementAndGet();
	}

	@Override
	public void lost(String key, long fencingToken, @Nullable Object holdContext) {
		count(this.losses, key).incrementAndGet();
	}

	/**
	 * How many renewals of the lock were reported so far.
	 * @param key the lock name
	 * @return the count
	 */
	public int renewals(String key) {
		return count(this.renewals, key).get();
	}

	/**
	 * How many losses of the lock were reported so far.
	 * @param key the lock name
	 * @return the count
	 */
	public int losses(String key) {
		return count(this.losses, key).get();
	}

	private static AtomicInteger count(ConcurrentHashMap<String, AtomicInteger> counts, String key) {
		return counts.computeIfAbsent(key, (name) -> new AtomicInteger());
	}

}
