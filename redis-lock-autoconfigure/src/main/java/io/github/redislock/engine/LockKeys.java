package io.github.redislock.engine;

/**
 * Names of the Redis keys and channels of a lock that every kind, or more than one, uses.
 * Each kind names its own keys from {@link #key(String, String)}. The lock name sits
 * inside a hash tag, so that every key and channel of one lock maps to the same Redis
 * Cluster slot and one script can touch them all.
 *
 * @param prefix the configured key prefix
 * @author redis-lock
 */
record LockKeys(String prefix) {

	/**
	 * A key or channel of the lock: the prefix, the lock name in its hash tag, and the
	 * suffix.
	 */
	String key(String name, String suffix) {
		return this.prefix + "{" + name + "}" + suffix;
	}

	/**
	 * Key holding the holder while an exclusive or fair lock is held: the two kinds share
	 * it, so they exclude each other. An exclusive lock keeps its whole state there, and
	 * a tombstone after its release ({@code lock-key.lua}).
	 */
	String lockKey(String name) {
		return key(name, "");
	}

	/**
	 * Key holding the last fencing token granted, kept for a while after the grant: the
	 * fair and read/write kinds' grants draw from it (an exclusive lock keeps its last
	 * token in its lock key).
	 */
	String fenceKey(String name) {
		return key(name, ":fence");
	}

	/**
	 * Short-lived mark that a release of an owner ran, which tells a release run again
	 * after a reconnect from a lock that was lost, and refuses an acquisition of that
	 * owner that reaches Redis after it: {@code 1} left by the release, or for an
	 * exclusive lock by the grant that replaces its tombstone; {@code 0} left by a
	 * release or give-back that found the lock not the owner's.
	 */
	String releasedKey(String name, String owner) {
		return key(name, ":released:" + owner);
	}

	/** Channel on which releases of an exclusive or fair lock are announced. */
	String releaseChannel(String name) {
		return key(name, ":released");
	}

	/** The lock name of a release channel of any kind. */
	String nameOfReleaseChannel(String channel) {
		return channel.substring(this.prefix.length() + 1, channel.lastIndexOf('}'));
	}

	/**
	 * Channel subscribed for as long as the engine runs: it keeps the subscription
	 * connection open between waits, and its re-subscription after a reconnect tells that
	 * release messages may have been missed.
	 */
	String controlChannel() {
		return this.prefix + "subscription";
	}

}
