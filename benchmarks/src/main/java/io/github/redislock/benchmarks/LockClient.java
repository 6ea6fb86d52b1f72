package io.github.redislock.benchmarks;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One implementation's way to take and release a lock, as the scenarios see it: one
 * client per JVM, shared by its threads, used the way its documentation shows.
 * <p>
 * Every client takes exclusive locks. Fair and read/write locks are optional: a client
 * that has them overrides their methods, and its {@link Implementation} lists the
 * {@link Kind kinds}, so that the launcher leaves it out of scenarios it cannot run
 * without opening it.
 */
interface LockClient extends AutoCloseable {

	/** How long a benchmark thread waits for a lock before the run is declared broken. */
	Duration WAIT_LIMIT = Duration.ofMinutes(2);

	/**
	 * Take the lock, waiting as long as it takes (up to {@link #WAIT_LIMIT}).
	 * @param key the lock name
	 * @param lease a fixed lease, or {@code null} for the implementation's default
	 * (renewed by a watchdog where it has one)
	 * @return what releases the lock, to be called by the same thread
	 */
	Release acquire(String key, @Nullable Duration lease);

	default Release acquire(String key) {
		return acquire(key, null);
	}

	/**
	 * Take the fair lock of the given name, first come first served, with the
	 * implementation's default lease.
	 * @param key the lock name
	 * @return what releases the lock, to be called by the same thread
	 * @throws UnsupportedOperationException if the implementation has no fair lock
	 */
	default Release acquireFair(String key) {
		throw unsupported(Kind.FAIR);
	}

	/**
	 * Take the read side of the read/write lock of the given name, with the
	 * implementation's default lease.
	 * @param key the lock name
	 * @return what releases the lock, to be called by the same thread
	 * @throws UnsupportedOperationException if the implementation has no read/write lock
	 */
	default Release acquireRead(String key) {
		throw unsupported(Kind.READ_WRITE);
	}

	/**
	 * Take the write side of the read/write lock of the given name, with the
	 * implementation's default lease.
	 * @param key the lock name
	 * @return what releases the lock, to be called by the same thread
	 * @throws UnsupportedOperationException if the implementation has no read/write lock
	 */
	default Release acquireWrite(String key) {
		throw unsupported(Kind.READ_WRITE);
	}

	/**
	 * Take one of the given number of permits of the name, waiting as long as it takes
	 * (up to {@link #WAIT_LIMIT}): at most {@code limit} holders at once, across every
	 * JVM.
	 * @param key the name the permits share
	 * @param limit how many may hold a permit at once, the same on every call of the name
	 * @return what releases the permit, to be called by the same thread
	 * @throws UnsupportedOperationException if the implementation has no permits
	 */
	default Release acquirePermit(String key, int limit) {
		throw unsupported(Kind.PERMIT);
	}

	/**
	 * Take the lock of the given name with no fixed lease, so that the implementation's
	 * watchdog renews it for as long as it is held, waiting as long as it takes (up to
	 * {@link #WAIT_LIMIT}).
	 * @param key the lock name
	 * @return the lock held, to be released by the same thread
	 * @throws UnsupportedOperationException if the implementation has no watchdog
	 */
	default Renewed acquireRenewed(String key) {
		throw unsupported(Kind.WATCHDOG);
	}

	/**
	 * How often the watchdog renews the lease of a lock taken with
	 * {@link #acquireRenewed}.
	 * @return the renew interval
	 * @throws UnsupportedOperationException if the implementation has no watchdog
	 */
	default Duration renewInterval() {
		throw unsupported(Kind.WATCHDOG);
	}

	/**
	 * Whether the implementation tells the holder of a renewed lock that it was lost
	 * before the holder releases it: whether {@link Renewed#lossNoticed()} means
	 * anything.
	 */
	default boolean noticesLoss() {
		return false;
	}

	private UnsupportedOperationException unsupported(Kind kind) {
		return new UnsupportedOperationException(getClass().getSimpleName() + " has no " + kind.description());
	}

	@Override
	void close();

	/** Releases one acquisition. */
	@FunctionalInterface
	interface Release {

		void release();

	}

	/** A lock its implementation's watchdog renews while held. */
	interface Renewed {

		/**
		 * Whether the implementation has told the holder that the lock was lost, without
		 * asking Redis; {@code false} where it has no way to tell (see
		 * {@link LockClient#noticesLoss()}).
		 */
		boolean lossNoticed();

		/**
		 * Release the lock, from the thread that took it.
		 * @return {@code false} when the release found the lock no longer held by this
		 * owner in Redis: it was lost
		 */
		boolean release();

	}

	/** The kinds of lock a scenario may need. */
	enum Kind {

		/** One holder at a time, whoever asks first when it is free: {@link #acquire}. */
		EXCLUSIVE("exclusive lock"),

		/** One holder at a time, in the order they asked: {@link #acquireFair}. */
		FAIR("fair lock"),

		/**
		 * Many readers or one writer: {@link #acquireRead} and {@link #acquireWrite}.
		 */
		READ_WRITE("read/write lock"),

		/**
		 * An exclusive lock with no fixed lease, renewed by the implementation's watchdog
		 * for as long as it is held: {@link #acquireRenewed}.
		 */
		WATCHDOG("watchdog"),

		/**
		 * One of a limited number of permits of a name, held by as many at once:
		 * {@link #acquirePermit}.
		 */
		PERMIT("permits");

		private final String description;

		Kind(String description) {
			this.description = description;
		}

		String description() {
			return this.description;
		}

	}

}
