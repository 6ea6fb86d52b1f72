package io.github.redislock.engine;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockOptions;

/**
 * What one acquisition asks for, under an owner token of its own ({@link OwnerTokens}).
 *
 * @param kind the kind of lock
 * @param key the lock name
 * @param owner the owner token the acquisition asks under
 * @param leaseMillis the lease it asks for
 * @param renewed whether the watchdog renews the lease
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
	 * waiter that dies stops holding others up within this time, not its whole wait.
	 */
	static final long LINE_LEASE_MILLIS = 3000;

	/**
	 * An acquisition that may queue, waiting up to the given time.
	 * @param leaseTime a fixed lease, or {@code null} for a lease the watchdog renews
	 */
	static Acquisition of(LockKind kind, String key, String owner, @Nullable Duration leaseTime, LockOptions options,
			Duration waitTime, boolean reentrant, String covering) {
		long leaseMillis = LockLease.millis((leaseTime != null) ? leaseTime : options.watchdogLease());
		return new Acquisition(kind, key, owner, leaseMillis, leaseTime == null, reentrant,
				System.nanoTime() + LockLease.nanos(waitTime), covering, true);
	}

	/**
	 * How long its place in line lasts unless renewed, in ms: the wait left, at most
	 * {@value #LINE_LEASE_MILLIS}; 0 when it does not queue.
	 */
	long waitLeftMillis() {
		return this.queues
				? Math.max(0, Math.min(LINE_LEASE_MILLIS, (this.deadlineNanos - System.nanoTime()) / 1_000_000)) : 0;
	}

	/** The same acquisition trying without joining its line. */
	Acquisition withoutQueueing() {
		return new Acquisition(this.kind, this.key, this.owner, this.leaseMillis, this.renewed, this.reentrant,
				this.deadlineNanos, this.covering, false);
	}

	/**
	 * What Redis answered one attempt, of any lock kind: each acquire script replies
	 * {@code {1, token}} or the bare token when granted, and {@code {0, ms}} when not.
	 *
	 * @param granted whether the lock was granted
	 * @param fencingToken the token of the grant, when granted
	 * @param holderLeaseMillis when not granted, how long the caller may sleep at most:
	 * the holder's lease left, or less when a line ends sooner; -1 when unknown
	 * @param replicas how many replicas acknowledged the grant, when asked
	 */
	record Attempt(boolean granted, long fencingToken, long holderLeaseMillis, long replicas) {

		static Attempt of(List<?> reply) {
			if (reply.size() == 1) {
				return granted(((Number) reply.get(0)).longValue());
			}
			long value = ((Number) reply.get(1)).longValue();
			return (((Number) reply.get(0)).longValue() == 1) ? granted(value) : heldFor(value);
		}

		static Attempt granted(long fencingToken) {
			return new Attempt(true, fencingToken, 0, 0);
		}

		static Attempt heldFor(long holderLeaseMillis) {
			return new Attempt(false, 0, holderLeaseMillis, 0);
		}

		Attempt acknowledgedBy(long replicas) {
			return new Attempt(this.granted, this.fencingToken, this.holderLeaseMillis, replicas);
		}

	}

	/**
	 * Owner tokens unique per acquisition: a random instance id, fixed for the life of
	 * the engine, and a sequence number. A thread id would not do: two JVMs have threads
	 * with the same id, and one thread acquires many times.
	 */
	static final class OwnerTokens {

		private final String instanceId;

		private final AtomicLong sequence = new AtomicLong();

		OwnerTokens() {
			byte[] random = new byte[8];
			new SecureRandom().nextBytes(random);
			this.instanceId = HexFormat.of().formatHex(random);
		}

		String instanceId() {
			return this.instanceId;
		}

		String next() {
			return this.instanceId + ":" + this.sequence.incrementAndGet();
		}

	}

}
