package io.github.redislock.engine;

/**
 * What one acquisition asks for; the owner token is its own.
 *
 * @param kind the kind of lock
 * @param key the lock name
 * @param owner the owner token the acquisition asks under
 * @param leaseMillis the lease it asks for
 * @param renewed whether the watchdog renews the lease, rather than let a fixed one run
 * out
 * @param reentrant whether the lock belongs to the calling thread, which may re-enter it
 * @param deadlineNanos when the wait ends, as {@link System#nanoTime()}
 * @param covering the owner token of the write lock the thread holds, which lets a read
 * acquisition through, or {@code ""}
 * @param queues whether a refused attempt joins the kind's line in Redis (a fair queue, a
 * writer intent)
 * @author redis-lock
 */
record Acquisition(LockKind kind, String key, String owner, long leaseMillis, boolean renewed, boolean reentrant,
		long deadlineNanos, String covering, boolean queues) {

	/**
	 * How long a fair queue entry or a writer intent lasts unless its waiter renews it: a
	 * waiter that dies stops holding others up within this time, not after its whole
	 * wait.
	 */
	static final long LINE_LEASE_MILLIS = 3000;

	/**
	 * How long its place in line lasts, in milliseconds, unless the waiter renews it: the
	 * time it still waits, at most {@value #LINE_LEASE_MILLIS}; 0 when it does not queue.
	 */
	long waitLeftMillis() {
		return this.queues
				? Math.max(0, Math.min(LINE_LEASE_MILLIS, (this.deadlineNanos - System.nanoTime()) / 1_000_000)) : 0;
	}

	/** The same acquisition under another owner token. */
	Acquisition withOwner(String owner) {
		return new Acquisition(this.kind, this.key, owner, this.leaseMillis, this.renewed, this.reentrant,
				this.deadlineNanos, this.covering, this.queues);
	}

	/** The same acquisition trying without joining its line. */
	Acquisition withoutQueueing() {
		return new Acquisition(this.kind, this.key, this.owner, this.leaseMillis, this.renewed, this.reentrant,
				this.deadlineNanos, this.covering, false);
	}

}
