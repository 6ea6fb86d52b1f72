package io.github.redislock.contract;

import org.jspecify.annotations.Nullable;

import io.github.redislock.test.RedisCli;

/**
 * What a lock key in Redis says, read as the engine's scripts read it
 * ({@code lock-key.lua}): an exclusive lock keeps its holder there as
 * {@code h|<owner>|<token>}, with a flag after it when someone was refused, and after its
 * release a tombstone, {@code r|<owner>|<token>|…}, which counts as free; a fair lock
 * keeps its holder's bare owner token. Tests ask for the holder rather than compare the
 * raw value, so that they say what they mean: held by whom, or free.
 * <p>
 * Public because the tests of other packages (faults, the root package) read lock keys
 * too.
 */
public final class LockKeyValues {

	private LockKeyValues() {
	}

	/**
	 * The owner token of the holder of a lock key's value.
	 * @param value the value of a lock key, or {@code null} when there is none
	 * @return the holder's owner token, or {@code null} when the lock is free: no key, or
	 * the tombstone of a release
	 */
	public static @Nullable String holder(@Nullable String value) {
		if (value == null || value.startsWith("r|")) {
			return null;
		}
		if (value.startsWith("h|")) {
			int end = value.indexOf('|', 2);
			return value.substring(2, (end >= 0) ? end : value.length());
		}
		return value;
	}

	/**
	 * The owner token of the holder of a lock, read from Redis.
	 * @param cli a connection to the server that holds the key
	 * @param key the lock key
	 * @return the holder's owner token, or {@code null} when the lock is free
	 */
	public static @Nullable String holder(RedisCli cli, String key) {
		return holder(cli.get(key));
	}

	/**
	 * Whether a lock key's value leaves the lock free.
	 * @param value the value, or {@code null} when there is no key
	 * @return whether there is no key, or the tombstone of a release
	 */
	public static boolean isFree(@Nullable String value) {
		return holder(value) == null;
	}

	/**
	 * Whether a lock key's value is the tombstone an exclusive lock's release leaves.
	 * @param value the value, or {@code null} when there is no key
	 * @return whether it is a tombstone
	 */
	public static boolean isTombstone(@Nullable String value) {
		return value != null && value.startsWith("r|");
	}

}
