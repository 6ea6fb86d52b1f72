package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.LockMode;
import io.github.redislock.engine.ReleaseSubscriptions.WakeUp;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * One holder; waiters of every JVM queue in Redis and are served in order
 * ({@code fair-acquire.lua}, {@code fair-release.lua}, {@code fair-leave.lua},
 * {@code renew.lua}).
 *
 * <p>
 * Shares its lock key and release channel with the exclusive kind, so a fair and an
 * exclusive lock of one name exclude each other; an exclusive lock's tombstone there
 * ({@code lock-key.lua}) counts as free. A waiter's queue entry expires unless it tries
 * again ({@link Acquisition#LINE_LEASE_MILLIS}). A release wakes only the head of the
 * queue: its message is {@code >} and the head's owner token, which only the head's JVM
 * acts on. It neither hands over nor yields: the queue decides who is next.
 *
 * @author redis-lock
 */
final class FairLockKind extends LockKind {

	/** First byte of a message that wakes the one waiter it names. */
	private static final byte TARGETED = '>';

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> acquire = LockScripts.script(List.class, "fencing-token.lua", "lock-key.lua",
			"fair-acquire.lua");

	private final RedisScript<Long> release = LockScripts.script(Long.class, "fair-release.lua");

	private final RedisScript<Long> leave = LockScripts.script(Long.class, "fair-leave.lua");

	/** An exclusive lock whose waiters take turns: fairness is not a mode. */
	@Override
	LockMode mode() {
		return LockMode.EXCLUSIVE;
	}

	/** Queue of the waiters, in arrival order. */
	static String queueKey(LockScripts scripts, String name) {
		return scripts.key(name, ":queue");
	}

	/** Deadline of each queue entry. */
	static String queueDeadlinesKey(LockScripts scripts, String name) {
		return scripts.key(name, ":queue:deadlines");
	}

	@Override
	@SuppressWarnings("rawtypes")
	ScriptCall<List> acquireCall(LockScripts scripts, Acquisition acquisition) {
		String name = acquisition.key();
		return ScriptCall.of(this.acquire,
				List.of(scripts.lockKey(name), scripts.fenceKey(name), queueKey(scripts, name),
						queueDeadlinesKey(scripts, name)),
				acquisition.owner(), Long.toString(acquisition.leaseMillis()), FENCE_RETENTION_MILLIS,
				Long.toString(acquisition.waitLeftMillis()));
	}

	@Override
	ScriptCall<Long> releaseCall(LockScripts scripts, String name, String owner, long grantToken, long fence) {
		return ScriptCall.of(this.release,
				List.of(scripts.lockKey(name), queueKey(scripts, name), queueDeadlinesKey(scripts, name),
						scripts.releasedKey(name, owner)),
				owner, channel(scripts.prefix(), name), scripts.publishCommand(), scripts.releaseMarkMillis());
	}

	@Override
	ScriptCall<Long> leaveCall(LockScripts scripts, String name, String owner) {
		return ScriptCall.of(this.leave,
				List.of(scripts.lockKey(name), queueKey(scripts, name), queueDeadlinesKey(scripts, name)), owner,
				channel(scripts.prefix(), name), scripts.publishCommand());
	}

	@Override
	@Nullable WakeUp wakeUp(byte[] message, byte[] ownPrefix) {
		if (message.length == 0 || message[0] != TARGETED) {
			return null;
		}
		if (!startsWith(message, 1, ownPrefix)) {
			return WakeUp.NOBODY;
		}
		return WakeUp.owner(new String(message, 1, message.length - 1, StandardCharsets.UTF_8));
	}

	@Override
	boolean queues() {
		return true;
	}

}
