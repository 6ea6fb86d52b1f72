package io.github.redislock.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.lettuce.core.api.async.RedisAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.engine.Acquisition.Attempt;
import io.github.redislock.engine.ScriptBatches.Answer;
import io.github.redislock.engine.ScriptCommands.PreparedCall;
import io.github.redislock.engine.ScriptCommands.ScriptCall;

/**
 * What the lock kinds' Lua scripts run with in one engine: the connection, the names of
 * the keys and channels, how release messages are published and how long a release leaves
 * its mark. Each kind owns its scripts (the {@code .lua} resources beside this class) and
 * builds their calls; this class runs them, each one round trip, as its
 * {@link ScriptCommands} base says.
 *
 * <p>
 * Every key and channel of a lock is the prefix, the lock name inside a hash tag, and a
 * suffix ({@link #key(String, String, String)}), so that all of them map to one Redis
 * Cluster slot and one script can touch them all.
 *
 * @author redis-lock
 */
final class LockScripts extends ScriptCommands {

	private static final Log logger = LogFactory.getLog(LockScripts.class);

	/** {@code renew.lua} for one lease, answered with a number, or several, a list. */
	private static final RedisScript<Long> RENEW = script(Long.class, "renew.lua");

	@SuppressWarnings("rawtypes")
	static final RedisScript<List> RENEW_BATCH = new Loaded<>(RENEW.getScriptAsString(), RENEW.getSha1(), List.class);

	private final String prefix;

	private final ReleaseMessaging messaging;

	LockScripts(RedisConnectionFactory connectionFactory, String prefix, ReleaseMessaging messaging) {
		super(connectionFactory);
		this.prefix = prefix;
		this.messaging = messaging;
	}

	static String key(String prefix, String name, String suffix) {
		return prefix + "{" + name + "}" + suffix;
	}

	String key(String name, String suffix) {
		return key(this.prefix, name, suffix);
	}

	String prefix() {
		return this.prefix;
	}

	/**
	 * Key of an exclusive or fair lock: the two kinds share it, so they exclude each
	 * other ({@code lock-key.lua}).
	 */
	String lockKey(String name) {
		return key(name, "");
	}

	/** Key holding the last fencing token the fair and read/write kinds granted. */
	String fenceKey(String name) {
		return key(name, ":fence");
	}

	/**
	 * Short-lived mark that a release of an owner ran, so that a release replayed after a
	 * reconnect and an acquisition of that owner arriving late are told: {@code 1} left
	 * by the release, {@code 0} by one that found the lock not the owner's.
	 */
	String releasedKey(String name, String owner) {
		return key(name, ":released:" + owner);
	}

	/** The lock name of a release channel of any kind. */
	String nameOfReleaseChannel(String channel) {
		return channel.substring(this.prefix.length() + 1, channel.lastIndexOf('}'));
	}

	/**
	 * Channel subscribed while the engine runs: it keeps the subscription connection open
	 * between waits, and its re-subscription after a reconnect tells of missed messages.
	 */
	String controlChannel() {
		return this.prefix + "subscription";
	}

	/** The command that publishes a release message, an argument of the scripts. */
	String publishCommand() {
		return this.messaging.publishCommand();
	}

	/**
	 * How long a release leaves its mark, an argument of every release script: as long as
	 * Lettuce may replay the release, so that the second run finds it.
	 */
	String releaseMarkMillis() {
		return Long.toString(replayWindowMillis());
	}

	/** As {@link ScriptBatches#sendAll}; throws, telling none, when Redis is down. */
	<T> void executeAllAsync(List<PreparedCall<T>> calls, List<? extends Answer<T>> answers) {
		ScriptBatches.sendAll(commands(), calls, answers);
	}

	/**
	 * Make sure that calls can be sent without waiting for Redis, as {@link #prepare()}
	 * did unless Redis failed then, doing what is left on the executor.
	 */
	CompletionStage<Void> ready(Executor executor) {
		if (isOpen() && this.messaging.isDecided()) {
			return CompletableFuture.completedFuture(null);
		}
		return CompletableFuture.runAsync(this::connect, executor);
	}

	/**
	 * Open the connection and learn how release messages travel before the first lock
	 * call: a cluster client connecting for the first time while a node stalls waits for
	 * that node, holding up a lock on a healthy one. Failures are left for lock calls.
	 */
	void prepare() {
		try {
			connect();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not connect to Redis ahead of the first lock call", ex);
		}
	}

	private void connect() {
		commands();
		this.messaging.publishCommand();
	}

	/** As {@link ScriptCommands#waitForReplicas} on the lock's key. */
	CompletionStage<Long> awaitReplicasAsync(String name, int replicas, long timeoutMillis) {
		return waitForReplicas(lockKey(name), replicas, timeoutMillis);
	}

	/**
	 * Run an acquire script, then wait until the given number of replicas acknowledged a
	 * grant, on the same connection ({@link ScriptCommands#waitForReplicas}).
	 * @return the grant with the number of replicas that acknowledged it, or the
	 * attempt's reply when not granted
	 */
	Attempt acquireReplicated(String name, Supplier<Attempt> acquire, int replicas, long timeoutMillis) {
		Attempt attempt = acquire.get();
		if (!attempt.granted()) {
			return attempt;
		}
		return attempt.acknowledgedBy(awaitReplicas(lockKey(name), replicas, timeoutMillis));
	}

	/**
	 * The call of {@code renew.lua} that sets a lease to the given length from now; a
	 * batch is such calls' keys and arguments in order ({@link RenewalWindow}).
	 */
	ScriptCall<Long> renewCall(LockLease lease, long leaseMillis) {
		LockKind kind = lease.kind();
		return ScriptCall.of(RENEW, List.of(kind.renewKey(this, lease.key())), kind.renewMode(), lease.owner(),
				Long.toString(leaseMillis));
	}

	/** Extend a lease now, waiting; false when the lock is no longer the owner's. */
	boolean renew(LockLease lease) {
		return isRenewed(execute(renewCall(lease, lease.leaseMillis())));
	}

	static boolean isRenewed(@Nullable Long reply) {
		return reply != null && reply == 1L;
	}

	/** Whether Redis is a cluster, where a script may only touch the keys of one slot. */
	boolean isCluster() {
		return !(commands() instanceof RedisAsyncCommands<byte[], byte[]>);
	}

	/**
	 * Read a script once, as text (a script made from a resource location checks the
	 * resource for changes at every call, which cost more than the rest of the call did),
	 * made of the given resources since Redis scripts cannot include one another: the
	 * shared functions first, the script itself last. A script with a line
	 * {@code -- <name>} of a resource gets that resource's text in that line's place
	 * instead: one whose usual case needs none of the shared functions defines them past
	 * it, as defining a function costs Redis on every run.
	 */
	static <T> RedisScript<T> script(Class<T> resultType, String... names) {
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
		RedisScript<T> script = RedisScript.of(front + text, resultType);
		return new Loaded<>(script.getScriptAsString(), script.getSha1(), resultType);
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
	 * A script whose digest is computed once: Spring Data Redis' script does it under a
	 * lock at every call, and a call must not wait for another thread's on a thread that
	 * must not block (a reactive caller's, the Redis client's).
	 */
	record Loaded<T>(String text, String sha1, @Nullable Class<T> resultType) implements RedisScript<T> {

		@Override
		public String getSha1() {
			return this.sha1;
		}

		@Override
		public @Nullable Class<T> getResultType() {
			return this.resultType;
		}

		@Override
		public String getScriptAsString() {
			return this.text;
		}

	}

}
