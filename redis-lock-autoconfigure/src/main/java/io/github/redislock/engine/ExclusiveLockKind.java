package io.github.redislock.engine;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.LockMode;
import io.github.redislock.engine.ReleaseSubscriptions.WakeUp;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * One holder; whoever is woken first wins ({@code acquire.lua}, {@code release.lua},
 * {@code renew.lua}). Its whole state is its lock key, as {@code lock-key.lua} tells.
 *
 * <p>
 * The kind the engine is fastest at: a renewed grant passes between the threads of this
 * JVM, and this JVM yields the lock to other JVMs (see {@link HandOver}'s and
 * {@link LocalLock}'s design notes). Its release message is the releasing owner's token,
 * so that a JVM tells its own releases from others'; a release publishes only when
 * someone may wait for it ({@code release.lua} says why that wakes every waiter).
 *
 * @author redis-lock
 */
final class ExclusiveLockKind extends LockKind {

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> check = LockScripts.script(List.class, "check.lua");

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> acquire = LockScripts.script(List.class, "lock-key.lua", "acquire.lua");

	private final RedisScript<Long> release = LockScripts.script(Long.class, "lock-key.lua", "release.lua");

	@Override
	LockMode mode() {
		return LockMode.EXCLUSIVE;
	}

	/**
	 * How long a released lock's tombstone lasts, in milliseconds: as long as its fencing
	 * token must be kept or its release must stay known, whichever is longer.
	 */
	static String tombstoneMillis(String releaseMarkMillis) {
		return Long.toString(Math.max(Long.parseLong(FENCE_RETENTION_MILLIS), Long.parseLong(releaseMarkMillis)));
	}

	@Override
	@SuppressWarnings("rawtypes")
	ScriptCall<List> acquireCall(LockScripts scripts, Acquisition acquisition) {
		return ScriptCall.of(this.acquire, List.of(scripts.lockKey(acquisition.key())), acquisition.owner(),
				Long.toString(acquisition.leaseMillis()));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Sends the script's source, not its digest: the release may reach Redis long after
	 * it was sent, when nobody waits for the reply, and a server that restarted meanwhile
	 * would refuse the digest with no caller there to send the source instead.
	 */
	@Override
	void giveBack(LockScripts scripts, String name, String owner, long fence) {
		scripts.executeBySource(releaseCall(scripts, name, owner, 0, fence));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Carries the key's value as the grant wrote it and the tombstone that replaces it,
	 * so that the usual release is a GET, a comparison and a SET ({@code release.lua}).
	 */
	@Override
	ScriptCall<Long> releaseCall(LockScripts scripts, String name, String owner, long grantToken, long fence) {
		String markMillis = scripts.releaseMarkMillis();
		String granted = (grantToken > 0) ? granted(owner, grantToken) : "";
		String tombstone = "r|" + owner + "|" + Math.max(grantToken, fence) + "|" + markMillis;
		return ScriptCall.of(this.release, List.of(scripts.lockKey(name)), granted, tombstone,
				tombstoneMillis(markMillis), scripts.publishCommand());
	}

	@Override
	boolean passes() {
		return true;
	}

	@Override
	@SuppressWarnings("rawtypes")
	@Nullable ScriptCall<List> checkCall(LockScripts scripts, LockLease lease) {
		return ScriptCall.of(this.check, List.of(scripts.lockKey(lease.key())),
				granted(lease.owner(), lease.fencingToken()), lease.owner());
	}

	/** The lock key's value as a grant writes it ({@code acquire.lua}). */
	private static String granted(String owner, long token) {
		return "h|" + owner + "|" + token;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Every message no other kind claims: the releasing owner's token. One of this JVM
	 * wakes nobody (the releasing thread does); one of another wakes one waiter and ends
	 * the yield.
	 */
	@Override
	@Nullable WakeUp wakeUp(byte[] message, byte[] ownPrefix) {
		return startsWith(message, 0, ownPrefix) ? WakeUp.NOBODY : WakeUp.NEXT;
	}

	@Override
	boolean yields() {
		return true;
	}

}
