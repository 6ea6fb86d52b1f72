package io.github.redislock.contract;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

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
	 * The fencing token an exclusive lock key's value keeps: its holder's, or after a
	 * release the last one granted.
	 * @param value the value, or {@code null} when there is no key
	 * @return the token, or {@code null} when the value keeps none (no key, a fair
	 * holder)
	 */
	public static @Nullable Long token(@Nullable String value) {
		if (value == null || !(value.startsWith("h|") || value.startsWith("r|"))) {
			return null;
		}
		int start = value.indexOf('|', 2) + 1;
		int end = value.indexOf('|', start);
		return Long.parseLong(value.substring(start, (end >= 0) ? end : value.length()));
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

	/**
	 * The keys matching the pattern on every primary of a topology, less the tombstones
	 * of released exclusive locks: what still holds a lock or other state.
	 * @param locks the topology
	 * @param pattern the pattern, as for {@code KEYS}
	 * @return the keys
	 */
	public static List<String> keysLessTombstones(LockFixture locks, String pattern) {
		List<String> keys = new ArrayList<>();
		for (RedisServer primary : locks.primaries()) {
			try (RedisCli cli = primary.cli()) {
				for (String key : cli.keys(pattern)) {
					if (!"string".equals(cli.command("TYPE", key)) || !isTombstone(cli.get(key))) {
						keys.add(key);
					}
				}
			}
		}
		return keys;
	}

}
