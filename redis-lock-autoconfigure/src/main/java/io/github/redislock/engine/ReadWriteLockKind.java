package io.github.redislock.engine;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.LockMode;
import io.github.redislock.engine.ReleaseSubscriptions.WakeUp;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * A side of a read/write lock: many readers or one writer ({@code rw-acquire.lua},
 * {@code rw-release.lua}, {@code rw-leave.lua}; {@code renew.lua} on the holders).
 *
 * <p>
 * The sides, {@link Read} and {@link Write}, share the holders' key, the scripts (told
 * the side), the channel and the message, and override what differs, so that neither
 * branches on the side: a writer waits in line (its intent keeps new readers out, renewed
 * while it waits, withdrawn when it gives up), a reader does not; a read hold is keyed
 * per thread, since several threads of a JVM read at once; and each side has its rule
 * about the calling thread's hold of the other.
 *
 * <p>
 * A release that may let others in wakes every waiter: its message is {@code *} and the
 * releasing owner's token, since several readers may get in together. Neither side hands
 * over nor yields.
 *
 * @author redis-lock
 */
abstract sealed class ReadWriteLockKind extends LockKind permits ReadWriteLockKind.Read, ReadWriteLockKind.Write {

	/** First byte of a message that wakes every waiter. */
	private static final byte BROADCAST = '*';

	@SuppressWarnings("rawtypes")
	private final RedisScript<List> acquire = LockScripts.script(List.class, "fencing-token.lua", "rw-acquire.lua");

	private final RedisScript<Long> release = LockScripts.script(Long.class, "rw-release.lua");

	/** Key holding the mode and the holders. */
	static String readWriteKey(LockScripts scripts, String name) {
		return scripts.key(name, ":rw");
	}

	/** Key naming the writer that waits. */
	static String writerIntentKey(LockScripts scripts, String name) {
		return scripts.key(name, ":rw:writer");
	}

	/** The side, as the scripts name it: {@code read} or {@code write}. */
	abstract String side();

	@Override
	String channel(String prefix, String name) {
		return LockScripts.key(prefix, name, ":rw:released");
	}

	@Override
	@SuppressWarnings("rawtypes")
	ScriptCall<List> acquireCall(LockScripts scripts, Acquisition acquisition) {
		String name = acquisition.key();
		return ScriptCall.of(this.acquire,
				List.of(readWriteKey(scripts, name), writerIntentKey(scripts, name), scripts.fenceKey(name)),
				acquisition.owner(), side(), Long.toString(acquisition.leaseMillis()), FENCE_RETENTION_MILLIS,
				Long.toString(acquisition.waitLeftMillis()), acquisition.covering());
	}

	@Override
	ScriptCall<Long> releaseCall(LockScripts scripts, String name, String owner, long grantToken, long fence) {
		return ScriptCall.of(this.release, List.of(readWriteKey(scripts, name), scripts.releasedKey(name, owner)),
				owner, side(), channel(scripts.prefix(), name), scripts.publishCommand(), scripts.releaseMarkMillis());
	}

	@Override
	String renewKey(LockScripts scripts, String name) {
		return readWriteKey(scripts, name);
	}

	/** {@code "h"}: the key holds the holders, each with the end of its lease. */
	@Override
	String renewMode() {
		return "h";
	}

	@Override
	@Nullable WakeUp wakeUp(byte[] message, byte[] ownPrefix) {
		return (message.length > 0 && message[0] == BROADCAST) ? WakeUp.ALL : null;
	}

	/** The shared side; a thread that holds the write lock may take it (downgrade). */
	static final class Read extends ReadWriteLockKind {

		@Override
		String side() {
			return "read";
		}

		@Override
		LockMode mode() {
			return LockMode.READ;
		}

		@Override
		LockHold.Key holdKey(String name, @Nullable Thread thread) {
			return new LockHold.Key(name, LockHold.Key.READ, thread);
		}

		/** One no thread may re-enter is keyed by its grant: several are held at once. */
		@Override
		LockHold.Key holdKey(LockLease lease, @Nullable Thread ownerThread) {
			return (ownerThread != null) ? holdKey(lease.key(), ownerThread)
					: new LockHold.Key(lease.key(), LockHold.Key.READ, lease.owner());
		}

		/** The owner token of the write lock the thread holds lets it in. */
		@Override
		String admit(LocalLocks locks, String name) {
			LockHold writing = locks.ofThisThread(LockKind.WRITE, name);
			return (writing != null) ? writing.lease().owner() : "";
		}

	}

	/** The exclusive side; a thread holding the read lock may not take it (upgrade). */
	static final class Write extends ReadWriteLockKind {

		private final RedisScript<Long> leave = LockScripts.script(Long.class, "rw-leave.lua");

		@Override
		String side() {
			return "write";
		}

		@Override
		LockMode mode() {
			return LockMode.WRITE;
		}

		@Override
		ScriptCall<Long> leaveCall(LockScripts scripts, String name, String owner) {
			return ScriptCall.of(this.leave, List.of(writerIntentKey(scripts, name)), owner,
					channel(scripts.prefix(), name), scripts.publishCommand());
		}

		@Override
		boolean queues() {
			return true;
		}

		@Override
		LockHold.Key holdKey(String name, @Nullable Thread thread) {
			return new LockHold.Key(name, LockHold.Key.WRITE, null);
		}

		@Override
		String admit(LocalLocks locks, String name) {
			if (locks.ofThisThread(LockKind.READ, name) != null) {
				throw new IllegalStateException("The current thread holds the read lock '" + name
						+ "' and asks for its write lock: a reader cannot upgrade, since two readers doing so would "
						+ "wait for each other for ever; release the read lock first, or take the write lock from the "
						+ "start and downgrade");
			}
			return "";
		}

	}

}
