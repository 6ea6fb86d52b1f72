package io.github.redislock.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.engine.Acquisition.Attempt;
import io.github.redislock.engine.ScriptBatches.Answer;
import io.github.redislock.engine.ScriptBatches.PreparedCall;

/**
 * What the lock kinds' Lua scripts run with in one engine: the connection, the key
 * prefix, how release messages are published and how long a release leaves its mark. Each
 * kind owns its scripts (the {@code .lua} resources beside this class) and builds their
 * calls; this class runs them, each one round trip: {@code EVALSHA}, falling back to
 * {@code EVAL} the first time a server has not seen the script.
 *
 * @author redis-lock
 */
final class LockScripts {

	private static final Log logger = LogFactory.getLog(LockScripts.class);

	/**
	 * How long the last fencing token of a lock is kept after its grant, in milliseconds:
	 * long enough to cover grants within one microsecond of server time and a server
	 * clock that steps back, short enough that an idle lock costs nothing for long. An
	 * argument of the fair and read/write acquire scripts; an exclusive lock keeps its
	 * token this long after its release, in its tombstone.
	 */
	static final String FENCE_RETENTION_MILLIS = "60000";

	/** {@code renew.lua} for a batch of one lease, which it answers with a number. */
	private static final RedisScript<Long> RENEW = script("renew.lua", Long.class);

	/** {@code renew.lua} for a batch of several leases, which it answers with a list. */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> RENEW_BATCH = new ScriptCall.Loaded<>(RENEW.getScriptAsString(), RENEW.getSha1(),
			List.class);

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

	LockKeys keys() {
		return this.keys;
	}

	/**
	 * The command that publishes a release message, an argument of the scripts that
	 * publish.
	 * @throws RuntimeException from the Redis client when the server version could not be
	 * read
	 */
	String publishCommand() {
		return this.messaging.publishCommand();
	}

	/**
	 * How long a release leaves its mark, an argument of every release script: as long as
	 * Lettuce may send the release again after a reconnect, so that the second run finds
	 * it.
	 */
	String releaseMarkMillis() {
		return Long.toString(this.redis.replayWindowMillis());
	}

	/** Run a script and wait for its answer, as {@link ScriptCommands#execute}. */
	<T> T execute(ScriptCall<T> call) {
		return this.redis.execute(call);
	}

	/**
	 * Run a script and wait for its answer even if interrupted, as
	 * {@link ScriptCommands#executeUninterruptibly}: for releases and leaves.
	 */
	<T> T executeUninterruptibly(ScriptCall<T> call) {
		return this.redis.executeUninterruptibly(call);
	}

	/** Run a script by its source, as {@link ScriptCommands#executeBySource}. */
	void executeBySource(ScriptCall<?> call) {
		this.redis.executeBySource(call);
	}

	/**
	 * Run a script without waiting and without blocking the calling thread, as
	 * {@link ScriptCommands#executeWithoutBlocking}.
	 * @param opener opens the connection when it is not open
	 */
	<T> CompletionStage<T> executeAsync(ScriptCall<T> call, Executor opener) {
		return this.redis.executeWithoutBlocking(call, opener);
	}

	/**
	 * Make sure that calls can be built and sent without waiting for Redis (the
	 * connection open, the publish command known), doing what is left on the given
	 * executor, since it waits for Redis; {@link #prepare()} did it all as the engine
	 * started unless Redis failed then.
	 * @return completes when ready; exceptionally when Redis failed
	 */
	CompletionStage<Void> ready(Executor executor) {
		if (this.redis.isOpen() && this.messaging.isDecided()) {
			return CompletableFuture.completedFuture(null);
		}
		return CompletableFuture.runAsync(() -> {
			this.redis.commands();
			this.messaging.publishCommand();
		}, executor);
	}

	/**
	 * Wait, without blocking, until the given number of replicas acknowledged the writes
	 * of the engine's connection, as {@link ScriptCommands#awaitReplicas}.
	 * @return how many replicas acknowledged them
	 */
	CompletionStage<Long> awaitReplicasAsync(String name, int replicas, long timeoutMillis) {
		return this.redis.awaitReplicasAsync(this.keys.lockKey(name), replicas, timeoutMillis)
			.thenApply((acknowledged) -> (acknowledged != null) ? acknowledged : 0L);
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
	 * The call of {@code renew.lua} that sets a lease to the given length from now, a
	 * batch of one. A batch of several is made of such calls, their keys and their
	 * arguments each in order ({@link RenewalWindow}).
	 */
	ScriptCall<Long> renewCall(LockLease lease, long leaseMillis) {
		LockKind kind = lease.kind();
		return ScriptCall.of(RENEW, List.of(kind.renewKey(this.keys, lease.key())), kind.renewMode(), lease.owner(),
				Long.toString(leaseMillis));
	}

	/**
	 * Run the calls, sent together without waiting for the answers.
	 * @param answers told the answer to the call at the same index, on the Redis client's
	 * thread
	 * @throws RuntimeException when the connection could not be opened; then none is told
	 */
	<T> void executeAllAsync(List<PreparedCall<T>> calls, List<? extends Answer<T>> answers) {
		this.redis.executeAllAsync(calls, answers);
	}

	/**
	 * Whether Redis is a cluster, where a script may only touch the keys of one slot.
	 * @throws RuntimeException when the connection could not be opened
	 */
	boolean isCluster() {
		return this.redis.isCluster();
	}

	/**
	 * Extend a lease now, waiting for the answer; false when the lock is no longer the
	 * owner's.
	 */
	boolean renew(LockLease lease) {
		return isRenewed(this.redis.execute(renewCall(lease, lease.leaseMillis())));
	}

	/** Whether a renewal's answer says the lease was extended. */
	static boolean isRenewed(@Nullable Long reply) {
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
	 * resource for changes at every call, which cost more than the rest of the call did;
	 * and its digest once ({@link ScriptCall.Loaded}).
	 */
	static <T> RedisScript<T> script(String name, Class<T> resultType) {
		return new ScriptCall.Loaded<>(RedisScript.of(text(name), resultType));
	}

	/**
	 * Read an acquire script with {@code fencing-token.lua} in front of it: Redis scripts
	 * cannot include one another, and the fair and read/write kinds grant their fencing
	 * tokens alike.
	 */
	static <T> RedisScript<T> fencedScript(String name, Class<T> resultType) {
		return composedScript(resultType, "fencing-token.lua", name);
	}

	/**
	 * Read a script made of the given resources, as one text: the functions it shares
	 * with other scripts first (Redis scripts cannot include one another), the script
	 * itself last. A script that has a line {@code -- <name>} of a resource gets that
	 * resource's text in that line's place instead: one whose usual case needs none of
	 * the shared functions defines them past it, as defining a function costs Redis on
	 * every run.
	 */
	static <T> RedisScript<T> composedScript(Class<T> resultType, String... names) {
		String text = text(names[names.length - 1]);
		StringBuilder front = new StringBuilder();
		for (int i = names.length - 2; i >= 0; i--) {
			String placeholder = "\n-- " + names[i] + "\n";
			int at = text.indexOf(placeholder);
			if (at >= 0) {
				text = text.substring(0, at + 1) + text(names[i]) + text.substring(at + placeholder.length() - 1);
			}
			else {
				front.insert(0, text(names[i]));
			}
		}
		return new ScriptCall.Loaded<>(RedisScript.of(front + text, resultType));
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

}
