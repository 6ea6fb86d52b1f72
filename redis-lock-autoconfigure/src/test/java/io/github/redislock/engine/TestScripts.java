package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.Acquisition.Attempt;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * The lock kinds' scripts run one at a time with the arguments a test names, as the
 * engine runs them, on a connection of their own to a test server, and a second
 * connection to that server to read and change keys by hand; closed together.
 */
final class TestScripts implements AutoCloseable {

	private final LettuceConnectionFactory connectionFactory;

	private final LockScripts scripts;

	private final RedisCli cli;

	TestScripts(RedisServer server, String prefix) {
		this.connectionFactory = StandaloneLocks.connectionFactory(server);
		this.scripts = new LockScripts(this.connectionFactory, prefix, new ReleaseMessaging(this.connectionFactory));
		this.cli = server.cli();
	}

	/** A connection to the server, to read and change keys by hand. */
	RedisCli cli() {
		return this.cli;
	}

	/** Try an exclusive lock. */
	Attempt acquire(String name, String owner, long leaseMillis) {
		return acquire(LockKind.EXCLUSIVE, name, owner, leaseMillis, 0, "");
	}

	/**
	 * Try a lock of any kind.
	 * @param waitMillis how long the owner still waits, which a fair waiter or a writer
	 * holds its place in line for (at most {@link Acquisition#LINE_LEASE_MILLIS}); 0
	 * queues nothing
	 */
	Attempt acquire(LockKind kind, String name, String owner, long leaseMillis, long waitMillis, String covering) {
		Acquisition acquisition = new Acquisition(kind, name, owner, leaseMillis, true, true,
				System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis), covering, waitMillis > 0);
		return kind.acquire(this.scripts, acquisition);
	}

	/**
	 * Release an exclusive lock without telling its grant's token, as a give-back does,
	 * with the fence its tombstone keeps at least
	 * ({@link #release(LockKind, String, String, long)}).
	 */
	long release(String name, String owner, long fence) {
		return release(LockKind.EXCLUSIVE, name, owner, fence);
	}

	/** Release an exclusive lock as its holder does, telling the grant's token. */
	long releaseGranted(String name, String owner, long grantToken) {
		return releaseGranted(name, owner, grantToken, grantToken);
	}

	/**
	 * Release an exclusive lock as its last holder does after the grant passed between
	 * threads: telling the grant's token and the last holder's.
	 */
	long releaseGranted(String name, String owner, long grantToken, long fence) {
		return LockKind.EXCLUSIVE.release(this.scripts, name, owner, grantToken, fence);
	}

	/**
	 * Release as a give-back does, not knowing the grant, with the fence the tombstone
	 * keeps at least: an exclusive lock's tombstone keeps the greater of it and the
	 * grant's token.
	 */
	long release(LockKind kind, String name, String owner, long fence) {
		return kind.release(this.scripts, name, owner, 0, fence);
	}

	/** Renew an exclusive lock's lease. */
	boolean renew(String name, String owner, long leaseMillis) {
		return this.scripts
			.renew(new LockLease(LockKind.EXCLUSIVE, name, owner, 0, leaseMillis, true, System.nanoTime()));
	}

	/** How long a lock is still held for, as {@link LockKind#leaseLeft}. */
	long leaseLeft(String name) {
		return LockKind.leaseLeft(this.scripts, name);
	}

	ScriptCommands commands() {
		return this.scripts;
	}

	LockScripts lockScripts() {
		return this.scripts;
	}

	@Override
	public void close() {
		this.cli.close();
		this.connectionFactory.destroy();
	}

}
