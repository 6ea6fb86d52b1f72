package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

/**
 * Where a hold is found among its lock's holds ({@link LocalLock}): the lock's name, the
 * Redis state it shares, and for a shared lock the holder. A typed key rather than a
 * string built from the name, so that no name a user or a key template can write, such as
 * {@code "x (write)"}, finds the hold of another lock.
 *
 * @param name the lock's name as the caller gave it
 * @param state the Redis state the hold stands for: exclusive and fair locks of one name
 * share {@link #LOCK} on purpose, since they share their key and exclude each other
 * @param holder for a shared hold, the thread that may re-enter it or, when none may, its
 * owner token; {@code null} for a lock with one holder at a time
 * @author redis-lock
 */
record HoldKey(String name, String state, @Nullable Object holder) {

	/** The state of exclusive and fair locks, which share their lock key. */
	static final String LOCK = "lock";

	/** The write side of a read/write lock. */
	static final String WRITE = "write";

	/** The read side of a read/write lock, one hold per reader. */
	static final String READ = "read";

}
