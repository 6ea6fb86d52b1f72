package io.github.redislock.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.engine.ScriptCommands.Answer;
import io.github.redislock.engine.ScriptCommands.PreparedCall;

/**
 * Runs the lock's Lua scripts ({@code acquire.lua}, {@code release.lua},
 * {@code renew.lua} beside this class), each one round trip: {@code EVALSHA}, falling
 * back to {@code EVAL} the first time a server has not seen the script.
 *
 * @author redis-lock
 */
final class LockScripts {

	private static final Logger logger = LoggerFactory.getLogger(LockScripts.class);

	/**
	 * How long the last fencing token of a lock is kept after its grant: long enough to
	 * cover grants within one microsecond of server time and a server clock that steps
	 * back, short enough that an idle lock costs nothing for long.
	 */
	static final long FENCE_RETENTION_MILLIS = 60_000;

	/** Also sent asynchronously, by {@link AsyncAcquirer}. */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> ACQUIRE = fencedScript("acquire.lua", List.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	private static final RedisScript<Long> RENEW = script("renew.lua", Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> FAIR_ACQUIRE = fencedScript("fair-acquire.lua", List.class);

	private static final RedisScript<Long> FAIR_RELEASE = script("fair-release.lua", Long.class);

	private static final RedisScript<Long> FAIR_LEAVE = script("fair-leave.lua", Long.class);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> READ_WRITE_ACQUIRE = fencedScript("rw-acquire.lua", List.class);

	private static final RedisScript<Long> READ_WRITE_RELEASE = script("rw-release.lua", Long.class);

	private static final RedisScript<Long> READ_WRITE_RENEW = script("rw-renew.lua", Long.class);

	private static final RedisScript<Long> READ_WRITE_LEAVE = script("rw-leave.lua", Long.class);

	private final ScriptCommands redis;

	private final LockKeys keys;

	private final ReleaseMessaging messaging;

	LockScripts(RedisConnectionFactory connectionFactory, LockKeys keys) {
		this(connectionFactory, keys, new ReleaseMessaging(connectionFactory));
	}

	LockScripts(RedisConnectionFactory connectionFactory, LockKeys keys, ReleaseMessaging messaging) {
		this.redis = new ScriptCommands(connectionFactory);
		this.keys = keys;
		this.messaging = messaging;
	}

	/**
	 * Grant the lock to the owner when it is free.
	 * @return the grant, or the holder's lease left
	 */
	Attempt acquire(String name, String owner, long leaseMillis) {
		return attempt(this.redis.execute(ACQUIRE,
				List.of(this.keys.lockKey(name), this.keys.fenceKey(name), this.keys.contendersKey(name)), owner,
				Long.toString(leaseMillis), Long.toString(FENCE_RETENTION_MILLIS), instanceOf(owner)));
	}

	/**
	 * Grant a fair lock to the owner when it is free and the owner is next in line;
	 * otherwise queue the owner for the time it still waits.
	 * @param waitMillis how long the owner still waits; 0 queues nothing
	 * @return the grant, or how long the owner may sleep at most
	 */
	Attempt acquireFair(String name, String owner, long leaseMillis, long waitMillis) {
		return attempt(this.redis.execute(FAIR_ACQUIRE,
				List.of(this.keys.lockKey(name), this.keys.fenceKey(name), this.keys.queueKey(name),
						this.keys.queueDeadlinesKey(name)),
				owner, Long.toString(leaseMillis), Long.toString(FENCE_RETENTION_MILLIS), Long.toString(waitMillis)));
	}

	/**
	 * Grant the read or write side of a read/write lock; a writer that must wait keeps
	 * new readers out for the time it still waits.
	 * @param covering the owner token of the caller's write lock of that name, which lets
	 * it take the read lock as well, or {@code ""}
	 * @return the grant, or how long the owner may sleep at most
	 */
	Attempt acquireReadWrite(LockKind kind, String name, String owner, long leaseMillis, long waitMillis,
			String covering) {
		return attempt(
				this.redis.execute(READ_WRITE_ACQUIRE,
						List.of(this.keys.readWriteKey(name), this.keys.writerIntentKey(name),
								this.keys.fenceKey(name)),
						owner, side(kind), Long.toString(leaseMillis), Long.toString(FENCE_RETENTION_MILLIS),
						Long.toString(waitMillis), covering));
	}

	/**
	 * Take a waiter that gives up out of the lock's line: its fair queue entry, or its
	 * writer intent, waking whom it kept waiting.
	 */
	void leave(LockKind kind, String name, String owner) {
		if (kind == LockKind.FAIR) {
			this.redis.executeUninterruptibly(FAIR_LEAVE,
					List.of(this.keys.lockKey(name), this.keys.queueKey(name), this.keys.queueDeadlinesKey(name)),
					owner, this.keys.releaseChannel(name), this.messaging.publishCommand());
		}
		else if (kind == LockKind.WRITE) {
			this.redis.executeUninterruptibly(READ_WRITE_LEAVE, List.of(this.keys.writerIntentKey(name)), owner,
					this.keys.readWriteChannel(name), this.messaging.publishCommand());
		}
	}

	/**
	 * Release a lock of any kind if the owner still holds it, waking waiters.
	 * @return -1 when the owner did not hold the lock; otherwise for an exclusive lock as
	 * {@link #release(String, String, long)}, and for other kinds 0 or more
	 */
	long release(LockKind kind, String name, String owner, long lastToken) {
		if (kind == LockKind.EXCLUSIVE) {
			return release(name, owner, lastToken);
		}
		Long reply = (kind == LockKind.FAIR)
				? this.redis.executeUninterruptibly(FAIR_RELEASE,
						List.of(this.keys.lockKey(name), this.keys.queueKey(name), this.keys.queueDeadlinesKey(name),
								this.keys.releasedKey(name, owner)),
						owner, this.keys.releaseChannel(name), this.messaging.publishCommand(), releaseMarkMillis())
				: this.redis.executeUninterruptibly(READ_WRITE_RELEASE,
						List.of(this.keys.readWriteKey(name), this.keys.releasedKey(name, owner)), owner, side(kind),
						this.keys.readWriteChannel(name), this.messaging.publishCommand(), releaseMarkMillis());
		return (reply != null) ? reply - 1 : -1;
	}

	/**
	 * The renewal of a lease of any kind, encoded once for all its renewals.
	 */
	PreparedCall<Long> renewal(LockLease lease) {
		String leaseMillis = Long.toString(lease.leaseMillis());
		return lease.kind().isReadWrite()
				? ScriptCommands.prepare(READ_WRITE_RENEW, List.of(this.keys.readWriteKey(lease.key())), lease.owner(),
						leaseMillis)
				: ScriptCommands.prepare(RENEW, List.of(this.keys.lockKey(lease.key())), lease.owner(), leaseMillis);
	}

	/**
	 * Extend the owners' leases, sent together without waiting for the answers.
	 * @param renewals from {@link #renewal(LockLease)}
	 * @param answers told the answer to the renewal at the same index, on the Redis
	 * client's thread: {@link #isRenewed} tells whether the lease was extended, or the
	 * lock no longer the owner's
	 */
	void renewAllAsync(List<PreparedCall<Long>> renewals, List<? extends Answer<Long>> answers) {
		this.redis.executeAllAsync(renewals, answers);
	}

	/** Whether a renewal's answer says the lease was extended. */
	static boolean isRenewed(@Nullable Long reply) {
		return isOne(reply);
	}

	private static String side(LockKind kind) {
		return (kind == LockKind.READ) ? "read" : "write";
	}

	static Attempt attempt(List<?> reply) {
		long value = ((Number) reply.get(1)).longValue();
		return (((Number) reply.get(0)).longValue() == 1) ? Attempt.granted(value) : Attempt.heldFor(value);
	}

	/**
	 * Run an acquire script, then wait until the given number of replicas acknowledged a
	 * grant. Both run on one connection, which {@code WAIT} needs: it counts the
	 * acknowledgements of its own connection's writes.
	 * @param name the lock name, whose slot names the primary on a cluster
	 * @param acquire runs one of the acquire scripts
	 * @return the grant with the number of replicas that acknowledged it, or the
	 * attempt's reply when not granted
	 */
	Attempt acquireReplicated(String name, Supplier<Attempt> acquire, int replicas, long timeoutMillis) {
		Attempt attempt = acquire.get();
		if (!attempt.granted()) {
			return attempt;
		}
		return attempt.acknowledgedBy(this.redis.awaitReplicas(this.keys.lockKey(name), replicas, timeoutMillis));
	}

	/**
	 * Release the lock if the owner still holds it, waking waiters.
	 * @param lastToken the fencing token of the last local holder when the grant was
	 * handed between threads, so that later grants exceed it; 0 otherwise
	 * @return 1 when a thread of another JVM was refused the lock since its last release
	 * (it waits), 0 when released otherwise, -1 when the owner did not hold the lock
	 */
	long release(String name, String owner, long lastToken) {
		Long reply = this.redis.executeUninterruptibly(RELEASE, releaseKeys(name, owner), owner,
				this.keys.releaseChannel(name), Long.toString(lastToken), Long.toString(FENCE_RETENTION_MILLIS),
				this.messaging.publishCommand(), instanceOf(owner), releaseMarkMillis());
		return (reply != null) ? reply - 1 : -1;
	}

	/**
	 * Release the lock if the owner holds it, sending the script's source rather than its
	 * digest. For a release that may reach Redis long after it was sent, when nobody
	 * waits for the reply any more: a server that restarted meanwhile would refuse the
	 * digest, and no caller would be there to send the source instead.
	 */
	void releaseBySource(String name, String owner) {
		this.redis.executeBySource(RELEASE, releaseKeys(name, owner), owner, this.keys.releaseChannel(name), "0",
				Long.toString(FENCE_RETENTION_MILLIS), this.messaging.publishCommand(), instanceOf(owner),
				releaseMarkMillis());
	}

	private List<String> releaseKeys(String name, String owner) {
		return List.of(this.keys.lockKey(name), this.keys.fenceKey(name), this.keys.contendersKey(name),
				this.keys.releasedKey(name, owner));
	}

	/**
	 * How long a release leaves its mark: as long as Lettuce may send the release again
	 * after a reconnect, so that the second run finds it.
	 */
	private String releaseMarkMillis() {
		return Long.toString(this.redis.replayWindowMillis());
	}

	/** The instance id an owner token begins with: its JVM's. */
	static String instanceOf(String owner) {
		int separator = owner.lastIndexOf(':');
		return (separator > 0) ? owner.substring(0, separator) : owner;
	}

	/** Extend the owner's lease; false when the lock is no longer the owner's. */
	boolean renew(String name, String owner, long leaseMillis) {
		return isOne(this.redis.execute(RENEW, List.of(this.keys.lockKey(name)), owner, Long.toString(leaseMillis)));
	}

	/**
	 * Extend a lease of any kind now, waiting for the answer; false when the lock is no
	 * longer the owner's.
	 */
	boolean renew(LockLease lease) {
		String leaseMillis = Long.toString(lease.leaseMillis());
		Long reply = lease.kind().isReadWrite()
				? this.redis.execute(READ_WRITE_RENEW, List.of(this.keys.readWriteKey(lease.key())), lease.owner(),
						leaseMillis)
				: this.redis.execute(RENEW, List.of(this.keys.lockKey(lease.key())), lease.owner(), leaseMillis);
		return isRenewed(reply);
	}

	private static boolean isOne(@Nullable Long reply) {
		return reply != null && reply == 1L;
	}

	/**
	 * Open the connection the scripts run on and learn how release messages travel, so
	 * that the first lock calls need not: a cluster client that connects for the first
	 * time while a node stalls waits for that node, which would hold up a lock on a
	 * healthy one. Failures are left for the lock calls to report.
	 */
	void prepare() {
		try {
			this.redis.commands();
			this.messaging.publishCommand();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not connect to Redis ahead of the first lock call", ex);
		}
	}

	/** The commands the scripts run on, for asynchronous acquisitions. */
	ScriptCommands commands() {
		return this.redis;
	}

	/** Close the connection the scripts run on. */
	void close() {
		this.redis.close();
	}

	/**
	 * Read a script once, as text: a script made from a resource location checks the
	 * resource for changes at every call, which cost more than the rest of the call did.
	 */
	private static <T> RedisScript<T> script(String name, Class<T> resultType) {
		return RedisScript.of(text(name), resultType);
	}

	/**
	 * Read an acquire script with {@code fencing-token.lua} in front of it: Redis scripts
	 * cannot include one another, and every kind of lock grants its fencing tokens alike.
	 */
	private static <T> RedisScript<T> fencedScript(String name, Class<T> resultType) {
		return RedisScript.of(text("fencing-token.lua") + text(name), resultType);
	}

	private static String text(String name) {
		ClassPathResource resource = new ClassPathResource(name, LockScripts.class);
		try {
			return resource.getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the lock script " + resource, ex);
		}
	}

	/**
	 * Outcome of one acquire script.
	 *
	 * @param granted whether the lock was granted
	 * @param fencingToken the token of the grant, when granted
	 * @param holderLeaseMillis the holder's lease left when not granted; -1 when it never
	 * expires
	 * @param replicas how many replicas acknowledged the grant, when asked
	 */
	record Attempt(boolean granted, long fencingToken, long holderLeaseMillis, long replicas) {

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

}
