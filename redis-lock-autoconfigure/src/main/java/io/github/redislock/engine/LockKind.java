package io.github.redislock.engine;

import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.LockMode;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * A kind of lock the engine grants: exclusive, fair, or a side of a read/write lock.
 *
 * <h2>Design notes</h2>
 *
 * As {@link java.util.concurrent.locks.AbstractQueuedSynchronizer} and its {@code Sync}
 * subclasses: the engine owns waiting, renewal and subscriptions; a kind owns what
 * differs between kinds and answers the engine's questions about it, so that the engine
 * never asks which kind it has:
 * <ul>
 * <li>its Lua scripts, the {@code KEYS} and {@code ARGV} of each built in one place, its
 * keys and its release channel;</li>
 * <li>what a release message of its own asks of the waiters here ({@link #wakeUp});</li>
 * <li>whether a renewed grant may pass between the threads of this JVM ({@link #passes},
 * {@link #checkCall}, {@link HandOver}), whether this JVM yields the lock to others after
 * releasing it ({@link #yields}), and whether waiters wait in line in Redis
 * ({@link #queues}) or else in arrival order in this JVM ({@link LocalLock});</li>
 * <li>how holds of its locks are keyed in this JVM and the rules between a thread's holds
 * of one lock ({@link #holdKey}, {@link #admit}).</li>
 * </ul>
 * Adding a kind is a permitted subclass, its Lua scripts, its place in {@link #of} and,
 * when its messages carry a marker, in {@link #BY_MESSAGE}. Kinds are stateless
 * singletons shared by every engine: what belongs to one engine (its connection, its key
 * prefix) comes in as {@link LockScripts}.
 *
 * @author redis-lock
 */
abstract sealed class LockKind permits ExclusiveLockKind, FairLockKind, ReadWriteLockKind, PermitLockKind {

	static final LockKind EXCLUSIVE = new ExclusiveLockKind();

	static final LockKind FAIR = new FairLockKind();

	static final LockKind READ = new ReadWriteLockKind.Read();

	static final LockKind WRITE = new ReadWriteLockKind.Write();

	/**
	 * How long a lock's last fencing token is kept after its grant, in milliseconds: long
	 * enough to cover grants within one microsecond of server time and a server clock
	 * that steps back, short enough that an idle lock soon costs nothing.
	 */
	static final String FENCE_RETENTION_MILLIS = "60000";

	/**
	 * The kinds that decode release messages, in order: kinds share channels, so a
	 * message is told by its content, a marker first, else an exclusive owner token.
	 */
	private static final List<LockKind> BY_MESSAGE = List.of(FAIR, READ, PermitLockKind.ONE, EXCLUSIVE);

	private static final RedisScript<Long> LEASE_LEFT = LockScripts.script(Long.class, "lease-left.lua");

	static LockKind of(LockMode mode, boolean fair, int limit) {
		return switch (mode) {
			case EXCLUSIVE -> fair ? FAIR : EXCLUSIVE;
			case READ -> READ;
			case WRITE -> WRITE;
			case PERMIT -> PermitLockKind.limitedTo(limit);
		};
	}

	/** What a release message of any kind asks of the local waiters of its channel. */
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
	 * How long the lock of the given name is still held by anyone, of any kind
	 * ({@code lease-left.lua}): milliseconds, -1 for a key without expiry, -2 when free.
	 */
	static long leaseLeft(LockScripts scripts, String name) {
		Long reply = scripts.execute(ScriptCall.of(LEASE_LEFT, List.of(scripts.lockKey(name),
				ReadWriteLockKind.readWriteKey(scripts, name), PermitLockKind.permitsKey(scripts, name))));
		return (reply != null) ? reply : -2;
	}

	String channel(String prefix, String name) {
		return LockScripts.key(prefix, name, ":released");
	}

	/**
	 * The call of the acquire script: granted when free, else a place in line taken or
	 * renewed when the acquisition {@linkplain Acquisition#queues() queues}.
	 */
	@SuppressWarnings("rawtypes")
	abstract ScriptCall<List> acquireCall(LockScripts scripts, Acquisition acquisition);

	/** Try the lock once, waiting for the answer. */
	Acquisition.Attempt acquire(LockScripts scripts, Acquisition acquisition) {
		return Acquisition.Attempt.of(scripts.execute(acquireCall(scripts, acquisition)));
	}

	/**
	 * Release the lock if the owner holds it, waking waiters, even when interrupted.
	 * @param grantToken the fencing token Redis granted the owner, 0 when not known
	 * @param fence the greatest fencing token given to a holder of the grant, which later
	 * grants must exceed: the grant's own unless it passed between threads of this JVM
	 * ({@link HandOver}); 0 when not known
	 * @return as {@link #releaseOutcome}
	 */
	long release(LockScripts scripts, String name, String owner, long grantToken, long fence) {
		return releaseOutcome(scripts.executeUninterruptibly(releaseCall(scripts, name, owner, grantToken, fence)));
	}

	/** The call of the release script, as {@link #release}. */
	abstract ScriptCall<Long> releaseCall(LockScripts scripts, String name, String owner, long grantToken, long fence);

	/**
	 * What a release script's answer means. Every kind's script answers 0 when the owner
	 * did not hold the lock, 2 when released while another JVM waits (only a kind that
	 * {@linkplain #yields() yields} tells), 1 otherwise; returned as -1, 1 and 0.
	 */
	static long releaseOutcome(@Nullable Long reply) {
		return (reply != null) ? reply - 1 : -1;
	}

	/** Whether a renewed grant may pass between threads here ({@link HandOver}). */
	boolean passes() {
		return false;
	}

	/**
	 * The call that asks, with the server's clock, whether a renewed grant is still held
	 * as granted and whether another JVM waits for it; {@code null} unless it
	 * {@linkplain #passes() passes}.
	 */
	@SuppressWarnings("rawtypes")
	@Nullable ScriptCall<List> checkCall(LockScripts scripts, LockLease lease) {
		return null;
	}

	/**
	 * Release whatever the owner may hold and take it out of any line, for a background
	 * release nobody awaits ({@link BackgroundReleases}).
	 */
	void giveBack(LockScripts scripts, String name, String owner, long fence) {
		release(scripts, name, owner, 0, fence);
		leave(scripts, name, owner);
	}

	/** Take a waiter that gives up out of the line, waking whom it kept waiting. */
	final void leave(LockScripts scripts, String name, String owner) {
		ScriptCall<Long> call = leaveCall(scripts, name, owner);
		if (call != null) {
			scripts.executeUninterruptibly(call);
		}
	}

	/** The call of the leave script; {@code null} for a kind that does not queue. */
	@Nullable ScriptCall<Long> leaveCall(LockScripts scripts, String name, String owner) {
		return null;
	}

	String renewKey(LockScripts scripts, String name) {
		return scripts.lockKey(name);
	}

	/** How {@code renew.lua} renews: {@code "k"}, a key that holds the owner token. */
	String renewMode() {
		return "k";
	}

	/**
	 * What a release message asks of this JVM's waiters, whose owner tokens begin with
	 * {@code ownPrefix}; {@code null} when the message is not of this kind.
	 */
	abstract ReleaseSubscriptions.@Nullable WakeUp wakeUp(byte[] message, byte[] ownPrefix);

	/**
	 * Whether this JVM, after releasing the lock while another JVM waits for it, leaves
	 * it alone for a while; the release scripts then report whether others wait, and the
	 * releasing thread wakes the local waiters itself.
	 */
	boolean yields() {
		return false;
	}

	/**
	 * Whether a waiter takes a place in line in Redis (a fair queue entry, a writer
	 * intent), renewed by trying again and left when it gives up.
	 */
	boolean queues() {
		return false;
	}

	/**
	 * Whether waiters that take no place in line in Redis wait in arrival order in this
	 * JVM, one asking at a time ({@link LocalLock}); else each asks Redis itself.
	 */
	boolean ordersWaitersHere() {
		return !queues();
	}

	/** The key of the given thread's hold of a lock of this kind among the engine's. */
	LockHold.Key holdKey(String name, @Nullable Thread thread) {
		return new LockHold.Key(name, LockHold.Key.LOCK, null);
	}

	/** The key of a hold whose thread may re-enter, or none may when {@code null}. */
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

	static boolean startsWith(byte[] bytes, int offset, byte[] prefix) {
		return bytes.length - offset >= prefix.length
				&& Arrays.equals(bytes, offset, offset + prefix.length, prefix, 0, prefix.length);
	}

}
