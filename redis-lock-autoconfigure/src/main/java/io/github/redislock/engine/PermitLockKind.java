package io.github.redislock.engine;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.engine.ReleaseSubscriptions.WakeUp;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * One of a limited number of permits of a name ({@code permit-acquire.lua},
 * {@code permit-release.lua}; {@code renew.lua} on the holders): at most {@link #limit}
 * holders at once, each with a lease of its own that the watchdog renews as a read
 * lock's.
 *
 * <h2>Design notes</h2>
 * <ul>
 * <li><b>The limit travels with each request</b>, so a kind is made per limit; nothing
 * else of it differs. Each JVM admits while fewer than its own limit hold, so while JVMs
 * disagree during a deploy no more than the largest of their limits hold; lowered, the
 * holders above it finish and nobody gets in until fewer than it hold.</li>
 * <li><b>No fast path.</b> Every grant asks Redis: a permit never passes between the
 * threads of this JVM ({@link #passes()} is false) and this JVM never yields, so the
 * checkers of the locks' fast path have nothing to watch here.</li>
 * <li><b>Waiters are not ordered here.</b> Each waiter asks Redis itself and sleeps until
 * a release wakes it or the soonest lease it was refused by ends: several permits free up
 * at once, and a waiter queued behind another of this JVM would sleep past a free one. A
 * release wakes one waiter in this JVM (the releasing thread) and, through one message,
 * one in each other JVM that was refused; a grant that leaves permits free while someone
 * waits publishes one more wake-up, so that permits freed without a release (leases that
 * ended, a limit raised) are taken one after the other. Like a non-fair
 * {@link java.util.concurrent.Semaphore}, an arrival may take a permit before a woken
 * waiter; the woken waiter then sleeps again.</li>
 * <li>Holds are keyed as read holds: per thread when it may re-enter (a thread's second
 * request re-enters the permit it holds), per owner token when not.</li>
 * </ul>
 *
 * @author redis-lock
 */
final class PermitLockKind extends LockKind {

	/** First byte of a permit's message: a release (with its owner) or a wake-up. */
	private static final byte MARKER = '+';

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> ACQUIRE = LockScripts.script(List.class, "fencing-token.lua",
			"permit-acquire.lua");

	private static final RedisScript<Long> RELEASE = LockScripts.script(Long.class, "permit-release.lua");

	/** The kind of the default limit, which decodes the messages of every limit. */
	static final PermitLockKind ONE = new PermitLockKind(1);

	private final int limit;

	private PermitLockKind(int limit) {
		this.limit = limit;
	}

	static PermitLockKind limitedTo(int limit) {
		return (limit == 1) ? ONE : new PermitLockKind(limit);
	}

	int limit() {
		return this.limit;
	}

	/** Key holding the holders and the JVMs that wait. */
	static String permitsKey(LockScripts scripts, String name) {
		return scripts.key(name, ":permits");
	}

	@Override
	String channel(String prefix, String name) {
		return LockScripts.key(prefix, name, ":permits:released");
	}

	@Override
	@SuppressWarnings("rawtypes")
	ScriptCall<List> acquireCall(LockScripts scripts, Acquisition acquisition) {
		String name = acquisition.key();
		long waitLeftMillis = Math.max(0, (acquisition.deadlineNanos() - System.nanoTime()) / 1_000_000);
		return ScriptCall.of(ACQUIRE, List.of(permitsKey(scripts, name), scripts.fenceKey(name)), acquisition.owner(),
				Integer.toString(this.limit), Long.toString(acquisition.leaseMillis()), FENCE_RETENTION_MILLIS,
				Long.toString(waitLeftMillis), channel(scripts.prefix(), name), scripts.publishCommand());
	}

	@Override
	ScriptCall<Long> releaseCall(LockScripts scripts, String name, String owner, long grantToken, long fence) {
		return ScriptCall.of(RELEASE, List.of(permitsKey(scripts, name), scripts.releasedKey(name, owner)), owner,
				channel(scripts.prefix(), name), scripts.publishCommand(), scripts.releaseMarkMillis());
	}

	@Override
	String renewKey(LockScripts scripts, String name) {
		return permitsKey(scripts, name);
	}

	/** {@code "h"}: the key holds the holders, each with the end of its lease. */
	@Override
	String renewMode() {
		return "h";
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A release of this JVM wakes nobody (the releasing thread woke a waiter); one of
	 * another JVM, or a wake-up after a grant that left permits free, wakes one waiter.
	 */
	@Override
	@Nullable WakeUp wakeUp(byte[] message, byte[] ownPrefix) {
		if (message.length == 0 || message[0] != MARKER) {
			return null;
		}
		return startsWith(message, 1, ownPrefix) ? WakeUp.NOBODY : WakeUp.NEXT;
	}

	@Override
	boolean ordersWaitersHere() {
		return false;
	}

	@Override
	LockHold.Key holdKey(String name, @Nullable Thread thread) {
		return new LockHold.Key(name, LockHold.Key.PERMIT, thread);
	}

	/** One no thread may re-enter is keyed by its grant: several are held at once. */
	@Override
	LockHold.Key holdKey(LockLease lease, @Nullable Thread ownerThread) {
		return (ownerThread != null) ? holdKey(lease.key(), ownerThread)
				: new LockHold.Key(lease.key(), LockHold.Key.PERMIT, lease.owner());
	}

}
