package io.github.redislock.engine;

/**
 * Names of the Redis keys and channels of a lock. The lock name sits inside a hash tag,
 * so that every key and channel of one lock maps to the same Redis Cluster slot and one
 * script can touch them all.
 *
 * @param prefix the configured key prefix
 * @author redis-lock
 */
record LockKeys(String prefix) {

	/** Key holding the owner token while the lock is held. */
	String lockKey(String name) {
		return this.prefix + "{" + name + "}";
	}

	/** Key holding the last fencing token granted, kept for a while after release. */
	String fenceKey(String name) {
		return this.prefix + "{" + name + "}:fence";
	}

	/**
	 * Set of the instance ids of the JVMs whose threads were refused the lock since it
	 * was last released.
	 */
	String contendersKey(String name) {
		return this.prefix + "{" + name + "}:contenders";
	}

	/**
	 * Short-lived mark that an owner released the lock, which tells a release run again
	 * after a reconnect from a lock that was lost.
	 */
	String releasedKey(String name, String owner) {
		return this.prefix + "{" + name + "}:released:" + owner;
	}

	/** Channel on which a release is announced to waiters. */
	String releaseChannel(String name) {
		return this.prefix + "{" + name + "}:released";
	}

	/** Queue of the waiters of a fair lock, in arrival order. */
	String queueKey(String name) {
		return this.prefix + "{" + name + "}:queue";
	}

	/** Deadline of each queue entry of a fair lock. */
	String queueDeadlinesKey(String name) {
		return this.prefix + "{" + name + "}:queue:deadlines";
	}

	/** Key holding the mode and the holders of a read/write lock. */
	String readWriteKey(String name) {
		return this.prefix + "{" + name + "}:rw";
	}

	/** Key naming the writer that waits for a read/write lock. */
	String writerIntentKey(String name) {
		return this.prefix + "{" + name + "}:rw:writer";
	}

	/** Channel on which releases of a read/write lock are announced. */
	String readWriteChannel(String name) {
		return this.prefix + "{" + name + "}:rw:released";
	}

	/** The channel on which a lock of the given kind announces its releases. */
	String channel(LockKind kind, String name) {
		return kind.isReadWrite() ? readWriteChannel(name) : releaseChannel(name);
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
