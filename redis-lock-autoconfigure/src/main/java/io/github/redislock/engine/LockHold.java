package io.github.redislock.engine;

/**
 * One grant of a lock to this JVM, shared by the reentrant handles of the thread that
 * acquired it. The hold count changes under the hold's monitor, because an owner thread
 * may re-enter while another thread closes an earlier handle.
 *
 * @author redis-lock
 */
final class LockHold {

	private final String key;

	private final String owner;

	private final long fencingToken;

	private final Thread ownerThread;

	private final long leaseMillis;

	private final boolean renewed;

	private final long acquiredAtMillis;

	/** System.nanoTime() by which the lease has surely run out unless renewed. */
	private volatile long expiresAtNanos;

	private volatile boolean lost;

	private int count = 1;

	LockHold(String key, String owner, long fencingToken, long leaseMillis, boolean renewed, long requestedAtNanos) {
		this.key = key;
		this.owner = owner;
		this.fencingToken = fencingToken;
		this.ownerThread = Thread.currentThread();
		this.leaseMillis = leaseMillis;
		this.renewed = renewed;
		this.acquiredAtMillis = System.currentTimeMillis();
		// The lease started when Redis ran the script, which was after the request was
		// sent.
		this.expiresAtNanos = requestedAtNanos + leaseMillis * 1_000_000;
	}

	String key() {
		return this.key;
	}

	String owner() {
		return this.owner;
	}

	long fencingToken() {
		return this.fencingToken;
	}

	Thread ownerThread() {
		return this.ownerThread;
	}

	long leaseMillis() {
		return this.leaseMillis;
	}

	/**
	 * Whether the watchdog renews this hold, rather than letting a fixed lease run out.
	 */
	boolean isRenewed() {
		return this.renewed;
	}

	long acquiredAtMillis() {
		return this.acquiredAtMillis;
	}

	long expiresAtNanos() {
		return this.expiresAtNanos;
	}

	void renewed(long requestedAtNanos) {
		this.expiresAtNanos = requestedAtNanos + this.leaseMillis * 1_000_000;
	}

	boolean isHeld() {
		return !this.lost && System.nanoTime() - this.expiresAtNanos < 0;
	}

	boolean isLost() {
		return this.lost || System.nanoTime() - this.expiresAtNanos >= 0;
	}

	/** Mark the hold lost; true for the call that changed it. */
	boolean markLost() {
		synchronized (this) {
			boolean changed = !this.lost;
			this.lost = true;
			return changed;
		}
	}

	/** Count one more handle, unless the hold was already released or lost. */
	synchronized boolean tryReenter() {
		if (this.count == 0 || !isHeld()) {
			return false;
		}
		this.count++;
		return true;
	}

	/** Count one handle less; true when it was the last. */
	synchronized boolean exit() {
		return --this.count == 0;
	}

}
