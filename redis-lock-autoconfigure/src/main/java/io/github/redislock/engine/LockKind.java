package io.github.redislock.engine;

import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.LockMode;

/**
 * A kind of lock the engine grants: exclusive, fair, or a side of a read/write lock.
 *
 * <h2>Design notes</h2>
 *
 * As {@link java.util.concurrent.locks.AbstractQueuedSynchronizer} and its {@code Sync}
 * subclasses: the engine owns waiting, renewal and subscriptions, and a kind owns what
 * differs between kinds, and answers the engine's questions about it, so that the engine
 * never asks which kind it has:
 * <ul>
 * <li>its Lua scripts, the {@code KEYS} and {@code ARGV} of each built in one place
 * ({@link #acquireCall}, {@link #release}, {@link #renewKey}, {@link #leave},
 * {@link #giveBack}), and its keys and release channel;</li>
 * <li>the Java half of its release message: what a message of its own asks of the waiters
 * here ({@link #wakeUp});</li>
 * <li>whether a renewed grant may pass between the threads of this JVM, and how Redis is
 * asked whether it still holds it ({@link #passes}, {@link #checkCall}: the one question
 * of the fast path, {@link HandOver}); whether this JVM yields the lock to others after
 * releasing it ({@link #yields}); and whether waiters wait in line in Redis
 * ({@link #queues}), or else in arrival order in this JVM ({@link LocalLock});</li>
 * <li>how holds of its locks are keyed in this JVM ({@link LockHold.Key}), and the rules
 * between a thread's holds of one lock ({@link #holdKey}, {@link #admit}).</li>
 * </ul>
 * What concerns every kind of a name at once is here: which kind sent a release message
 * ({@link #wakeUpOf}), and how long anyone holds the lock ({@link #leaseLeft}). Adding a
 * kind is a permitted subclass, its Lua scripts, and its place in {@link #of} and, when
 * its messages carry a marker, in {@link #BY_MESSAGE}.
 *
 * <p>
 * Kinds are stateless singletons, shared by every engine: whatever belongs to one engine
 * (its connection, its key prefix) comes in as {@link LockScripts} or {@link LockKeys}.
 *
 * @author redis-lock
 */
abstract sealed class LockKind permits ExclusiveLockKind, FairLockKind, ReadWriteLockKind {

	/** One holder; whoever is woken first wins. */
	static final LockKind EXCLUSIVE = new ExclusiveLockKind();

	/** One holder; waiters of every JVM queue in Redis and are served in order. */
	static final LockKind FAIR = new FairLockKind();

	/** The shared side of a read/write lock. */
	static final LockKind READ = new ReadWriteLockKind.Read();

	/** The exclusive side of a read/write lock. */
	static final LockKind WRITE = new ReadWriteLockKind.Write();

	/**
	 * The kinds that decode release messages, in the order they are asked: those whose
	 * messages begin with a marker, then the exclusive kind's bare owner tokens. Kinds
	 * share channels, so a message is recognised by its content.
	 */
	private static final List<LockKind> BY_MESSAGE = List.of(FAIR, READ, EXCLUSIVE);

	private static final RedisScript<Long> LEASE_LEFT = LockScripts.script("lease-left.lua", Long.class);

	/** The kind of a request for the given mode, fair or not. */
	static LockKind of(LockMode mode, boolean fair) {
		return switch (mode) {
			case EXCLUSIVE -> fair ? FAIR : EXCLUSIVE;
			case READ -> READ;
			case WRITE -> WRITE;
		};
	}

	/**
	 * What a release message asks of the local waiters of its channel.
	 * @param message the message as published by a release or leave script
	 * @param ownPrefix how this JVM's owner tokens begin
	 */
	static ReleaseSubscriptions.WakeUp wakeUpOf(byte[] message, byte[] ownPrefix) {
		for (LockKind kind : BY_MESSAGE) {
			ReleaseSubscriptions.WakeUp wakeUp = kind.wakeUp(message, ownPrefix);
			if (wakeUp != null) {
				return wakeUp;
			}
		}
		return ReleaseSubscriptions.WakeUp.NOBODY;
	}

	/**
	 * How long the lock of the given name is still held for by anyone, of any kind
	 * ({@code lease-left.lua}): milliseconds, -1 for a key without expiry, -2 when free.
	 * @throws RuntimeException from the Redis client when Redis failed
	 */
	static long leaseLeft(LockScripts scripts, String name) {
		LockKeys keys = scripts.keys();
		Long reply = scripts.execute(
				ScriptCall.of(LEASE_LEFT, List.of(keys.lockKey(name), ReadWriteLockKind.readWriteKey(keys, name))));
		return (reply != null) ? reply : -2;
	}

	/**
	 * The channel on which locks of this kind announce releases: by default the lock's.
	 */
	String channel(LockKeys keys, String name) {
		return keys.releaseChannel(name);
	}

	/**
	 * The call of the acquire script: granted when free, and otherwise, when the
	 * acquisition {@linkplain Acquisition#queues() queues}, its place in line taken or
	 * renewed.
	 */
	@SuppressWarnings("rawtypes")
	abstract ScriptCall<List> acquireCall(LockScripts scripts, Acquisition acquisition);

	/**
	 * Try the lock once, waiting for the answer.
	 * @throws RuntimeException from the Redis client when Redis failed
	 */
	Acquisition.Attempt acquire(LockScripts scripts, Acquisition acquisition) {
		return Acquisition.Attempt.of(scripts.execute(acquireCall(scripts, acquisition)));
	}

	/**
	 * Release the lock if the owner still holds it, waking waiters; waits for the answer
	 * even when interrupted.
	 * @param grantToken the fencing token Redis granted the owner, 0 when not known
	 * @param fence the greatest fencing token given to a holder of the grant, which later
	 * grants must exceed: the grant's own unless it passed between threads of this JVM
	 * ({@link HandOver}); 0 when not known
	 * @return -1 when the owner did not hold the lock; 1 when released and a thread of
	 * another JVM waits for it (only a kind that {@linkplain #yields() yields} tells); 0
	 * when released otherwise
	 * @throws RuntimeException from the Redis client when Redis failed
	 */
	long release(LockScripts scripts, String name, String owner, long grantToken, long fence) {
		return releaseOutcome(scripts.executeUninterruptibly(releaseCall(scripts, name, owner, grantToken, fence)));
	}

	/**
	 * The call of the release script, whose answer {@link #releaseOutcome} reads.
	 * @param grantToken as for {@link #release}
	 * @param fence as for {@link #release}
	 */
	abstract ScriptCall<Long> releaseCall(LockScripts scripts, String name, String owner, long grantToken, long fence);

	/**
	 * Whether a renewed grant of this kind may pass from a thread of this JVM to the next
	 * without a round trip ({@link HandOver}), which then asks Redis with
	 * {@link #checkCall}.
	 */
	boolean passes() {
		return false;
	}

	/**
	 * The call that asks whether a renewed grant is still held as granted, and whether a
	 * thread of another JVM waits for it, with the server's clock, for a kind that
	 * {@linkplain #passes() passes}; {@code null} for the others.
	 */
	@SuppressWarnings("rawtypes")
	@Nullable ScriptCall<List> checkCall(LockScripts scripts, LockLease lease) {
		return null;
	}

	/**
	 * What the release script's answer means, as {@link #release} returns it: every
	 * kind's script answers 0 when the owner did not hold the lock, 2 when released while
	 * another JVM waits, 1 otherwise.
	 */
	static long releaseOutcome(@Nullable Long reply) {
		return (reply != null) ? reply - 1 : -1;
	}

	/**
	 * Release, owner-checked, whatever the owner may hold and take it out of any line,
	 * for a background release that nobody awaits ({@link BackgroundReleases}).
	 * @param fence as for {@link #release}
	 * @throws RuntimeException from the Redis client when Redis failed
	 */
	void giveBack(LockScripts scripts, String name, String owner, long fence) {
		release(scripts, name, owner, 0, fence);
		leave(scripts, name, owner);
	}

	/**
	 * Take a waiter that gives up out of the lock's line, waking whom it kept waiting,
	 * and wait for the answer even when interrupted; nothing for a kind that does not
	 * queue.
	 * @throws RuntimeException from the Redis client when Redis failed
	 */
	final void leave(LockScripts scripts, String name, String owner) {
		ScriptCall<Long> call = leaveCall(scripts, name, owner);
		if (call != null) {
			scripts.executeUninterruptibly(call);
		}
	}

	/**
	 * The call of the script that takes a waiter out of the lock's line, as
	 * {@link #leave}; {@code null} for a kind that does not {@linkplain #queues() queue}.
	 */
	@Nullable ScriptCall<Long> leaveCall(LockScripts scripts, String name, String owner) {
		return null;
	}

	/**
	 * The key {@code renew.lua} renews a lease of this kind on: by default the lock key,
	 * which holds the owner token.
	 */
	String renewKey(LockKeys keys, String name) {
		return keys.lockKey(name);
	}

	/**
	 * How {@code renew.lua} renews a lease of this kind on its {@linkplain #renewKey
	 * key}: {@code "k"}, by default, for a key that holds the owner token.
	 */
	String renewMode() {
		return "k";
	}

	/**
	 * What a release message asks of this JVM's waiters, when it is of this kind.
	 * @param ownPrefix how this JVM's owner tokens begin
	 * @return the wake-up, or {@code null} when the message is not of this kind
	 */
	abstract ReleaseSubscriptions.@Nullable WakeUp wakeUp(byte[] message, byte[] ownPrefix);

	/**
	 * Whether this JVM, after releasing the lock while a thread of another JVM waits for
	 * it, leaves it alone for a while. The kind's release scripts then report whether
	 * others wait, its messages from this JVM wake nobody here, and the releasing thread
	 * wakes the local waiters itself.
	 */
	boolean yields() {
		return false;
	}

	/**
	 * Whether a waiter takes a place in line in Redis (a fair queue entry, a writer
	 * intent), renewed by trying again before it runs out, and left when it gives up.
	 */
	boolean queues() {
		return false;
	}

	/** The key of the given thread's hold of a lock of this kind among the engine's. */
	LockHold.Key holdKey(String name, @Nullable Thread thread) {
		return new LockHold.Key(name, LockHold.Key.LOCK, null);
	}

	/**
	 * The key of a hold among the engine's holds, as {@link #holdKey(String, Thread)}.
	 * @param ownerThread the thread that may re-enter, or {@code null} when none may
	 */
	LockHold.Key holdKey(LockLease lease, @Nullable Thread ownerThread) {
		return holdKey(lease.key(), ownerThread);
	}

	/**
	 * Check the calling thread's holds of the lock's other side before it acquires.
	 * @return the owner token of the thread's hold that lets it through, or {@code ""}
	 * @throws IllegalStateException when the thread's holds rule the acquisition out
	 */
	String admit(LocalLocks locks, String name) {
		return "";
	}

	/** Whether the bytes from the offset on begin with the prefix. */
	static boolean startsWith(byte[] bytes, int offset, byte[] prefix) {
		return bytes.length - offset >= prefix.length
				&& Arrays.equals(bytes, offset, offset + prefix.length, prefix, 0, prefix.length);
	}

}
