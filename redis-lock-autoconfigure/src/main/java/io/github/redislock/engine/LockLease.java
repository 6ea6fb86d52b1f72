package io.github.redislock.engine;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One grant of a lock by Redis to this JVM: the owner token stored in Redis and what this
 * JVM knows of its lease, its renewals and its loss. A grant never passes to another
 * owner of this JVM than the hold it was made for.
 *
 * @author redis-lock
 */
final class LockLease {

	/**
	 * The longest wait or lease the engine counts: a century, "for ever" for any process
	 * and far from overflowing a nanosecond deadline or a Redis expiry, so that a
	 * duration such as {@code Duration.ofSeconds(Long.MAX_VALUE)} works.
	 */
	private static final Duration LONGEST = Duration.ofDays(36_500);

	private final LockKind kind;

	private final String key;

	private final String owner;

	private final long fencingToken;

	private final long leaseMillis;

	private final boolean renewed;

	/** System.nanoTime() by which the lease has surely run out unless renewed. */
	private volatile long expiresAtNanos;

	private volatile boolean lost;

	/** Whether the engine released the lease in Redis as it shut down. */
	private volatile boolean revoked;

	/** Whether its loss was reported: warned about, or thrown to its holder. */
	private boolean lossReported;

	/**
	 * When the last extension (or the grant) was requested: renewals sent before it do
	 * not count, since Redis may have run them before the extension.
	 */
	private long extendedAtNanos;

	/** The hold the lease belongs to: the latest one it passed to. */
	private volatile @Nullable LockHold hold;

	/**
	 * What Redis last confirmed of a renewed grant that may pass between the threads of
	 * this JVM ({@link HandOver}); {@code null} for any other grant.
	 */
	private final @Nullable GrantCheck check;

	LockLease(LockKind kind, String key, String owner, long fencingToken, long leaseMillis, boolean renewed,
			long requestedAtNanos) {
		this.kind = kind;
		this.key = key;
		this.owner = owner;
		this.fencingToken = fencingToken;
		this.leaseMillis = leaseMillis;
		this.renewed = renewed;
		this.check = (renewed && kind.passes()) ? new GrantCheck(fencingToken) : null;
		// Redis started the lease after the request was sent.
		this.expiresAtNanos = requestedAtNanos + leaseMillis * 1_000_000;
		this.extendedAtNanos = requestedAtNanos;
	}

	/** The duration in milliseconds, at most {@link #LONGEST}. */
	static long millis(Duration duration) {
		return capped(duration).toMillis();
	}

	/** The duration in nanoseconds, at most {@link #LONGEST}. */
	static long nanos(Duration duration) {
		return capped(duration).toNanos();
	}

	private static Duration capped(Duration duration) {
		return (duration.compareTo(LONGEST) > 0) ? LONGEST : duration;
	}

	LockKind kind() {
		return this.kind;
	}

	String key() {
		return this.key;
	}

	String owner() {
		return this.owner;
	}

	/** The fencing token Redis granted; holds it passed to since carry greater ones. */
	long fencingToken() {
		return this.fencingToken;
	}

	@Nullable GrantCheck check() {
		return this.check;
	}

	@Nullable LockHold hold() {
		return this.hold;
	}

	/** Record the hold the lease belongs to, as it is granted or passed on. */
	void heldBy(LockHold hold) {
		this.hold = hold;
	}

	long leaseMillis() {
		return this.leaseMillis;
	}

	boolean isRenewed() {
		return this.renewed;
	}

	long expiresAtNanos() {
		return this.expiresAtNanos;
	}

	/**
	 * Move the expiry to the end of a lease renewed at the given time, unless a later
	 * renewal's answer moved it further already or an extension was sent after it.
	 */
	synchronized void renewed(long requestedAtNanos) {
		if (requestedAtNanos - this.extendedAtNanos < 0) {
			return;
		}
		long expiresAt = requestedAtNanos + this.leaseMillis * 1_000_000;
		if (expiresAt - this.expiresAtNanos > 0) {
			this.expiresAtNanos = expiresAt;
		}
	}

	/**
	 * Move the expiry to the end of a lease extended at the given time, earlier if the
	 * new lease is shorter; for a renewed lease no further than the watchdog's length,
	 * which its next renewal sets again.
	 */
	synchronized void extended(long requestedAtNanos, long millis) {
		long counted = this.renewed ? Math.min(millis, this.leaseMillis) : millis;
		this.expiresAtNanos = requestedAtNanos + counted * 1_000_000;
		this.extendedAtNanos = requestedAtNanos;
	}

	/** Mark the lease released by the shutdown, and so lost; true if this changed it. */
	synchronized boolean revoke() {
		boolean changed = !this.revoked;
		this.revoked = true;
		this.lost = true;
		return changed;
	}

	boolean isRevoked() {
		return this.revoked;
	}

	boolean isLost() {
		return this.lost || System.nanoTime() - this.expiresAtNanos >= 0;
	}

	/** Whether Redis said it is gone or the watchdog gave up, not just the estimate. */
	boolean isMarkedLost() {
		return this.lost;
	}

	/**
	 * Claim the one report of the lease's loss: the warning of whoever found it while it
	 * was held, or else the first {@link io.github.redislock.LockLostException} its
	 * holder gets, so that nobody warns of it twice.
	 * @return true for the call that claimed it
	 */
	synchronized boolean claimLossReport() {
		boolean claimed = !this.lossReported;
		this.lossReported = true;
		return claimed;
	}

	/** Mark the lease lost; true for the call that changed it. */
	synchronized boolean markLost() {
		boolean changed = !this.lost;
		this.lost = true;
		return changed;
	}

}
