package io.github.redislock.engine;

import io.github.redislock.LockMode;

/**
 * The kinds of lock the engine grants, each with its own scripts and Redis keys.
 *
 * @author redis-lock
 */
enum LockKind {

	/** One holder; whoever is woken first wins. */
	EXCLUSIVE,

	/** One holder; waiters of every JVM queue in Redis and are served in order. */
	FAIR,

	/** The shared side of a read/write lock. */
	READ,

	/** The exclusive side of a read/write lock. */
	WRITE;

	/**
	 * Return the kind of a request.
	 * @param mode the requested mode
	 * @param fair whether the request asked for a fair lock
	 * @return the kind
	 */
	static LockKind of(LockMode mode, boolean fair) {
		return switch (mode) {
			case EXCLUSIVE -> fair ? FAIR : EXCLUSIVE;
			case READ -> READ;
			case WRITE -> WRITE;
		};
	}

	boolean isReadWrite() {
		return this == READ || this == WRITE;
	}

}
