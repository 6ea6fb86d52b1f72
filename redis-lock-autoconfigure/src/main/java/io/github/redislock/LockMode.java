package io.github.redislock;

/**
 * What a lock lets others do while it is held.
 *
 * <p>
 * A {@link #READ} and a {@link #WRITE} lock of one name form one read/write lock, which
 * is separate from the {@link #EXCLUSIVE} lock and the {@link #PERMIT}s of that name: use
 * one kind per name.
 *
 * @author redis-lock
 * @see LockRequest#mode(LockMode)
 * @see DistributedLock#mode()
 */
public enum LockMode {

	/** One holder at a time, the default. */
	EXCLUSIVE,

	/**
	 * Shared with other readers, excluded by a writer. A reader may not upgrade to the
	 * write lock of the same name (two readers upgrading would wait for each other for
	 * ever): asking for it while holding the read lock fails at once with an
	 * {@link IllegalStateException}. While a writer waits, new readers wait behind it, so
	 * a steady stream of readers cannot starve writers.
	 */
	READ,

	/**
	 * Excludes readers and other writers. Its holder may also take the read lock of the
	 * same name (a downgrade): it keeps the read lock after releasing the write lock.
	 */
	WRITE,

	/**
	 * One of a limited number of permits: at most {@link LockRequest#limit()} holders of
	 * the name at once, across every JVM, each with a lease of its own, renewed while it
	 * runs and reported lost as a lock's. Separate from the locks of the same name.
	 * @see LockRequest#permit(String, int)
	 * @see DistributedConcurrencyLimit
	 */
	PERMIT

}
