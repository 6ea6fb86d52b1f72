package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockEngine;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Lock templates on one Redis topology, each with an engine and a connection factory of
 * its own (a "node"), closed together; tests observe a node through its engine's
 * {@linkplain #diagnostics(LockTemplate) diagnostics}, never through its threads' stack
 * frames. A subclass per topology ({@link StandaloneLocks}, {@link ClusterLocks},
 * {@link SentinelLocks}) says how to connect and where a lock's keys live; the contract
 * suite ({@link LockContractTests}) runs on any of them.
 * <p>
 * Public, unlike most test helpers, because the tests of other packages (faults, cluster,
 * the root package) build their nodes with these fixtures too. Command timeouts are short
 * so that fault tests fail fast.
 */
public abstract class LockFixture implements AutoCloseable {

	/** Command timeout of every node made here unless a test asks for another. */
	public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final Map<LockTemplate, LockDiagnostics> diagnostics = new IdentityHashMap<>();

	/**
	 * A node with the default options.
	 * @return the node's template
	 */
	public LockTemplate template() {
		return template(LockOptions.defaults());
	}

	/**
	 * A node with the given options.
	 * @param options the engine's options
	 * @return the node's template
	 */
	public LockTemplate template(LockOptions options) {
		return template(new RedisLockEngine(connectionFactory(), options));
	}

	/**
	 * A node with the given options that reports to the observer.
	 * @param options the engine's options
	 * @param observer what the engine reports renewals and losses to
	 * @return the node's template
	 */
	public LockTemplate template(LockOptions options, LockObserver observer) {
		return template(new RedisLockEngine(connectionFactory(), options, observer));
	}

	/**
	 * A node with the given options whose commands time out after the given time.
	 * @param options the engine's options
	 * @param commandTimeout the connection's command timeout
	 * @return the node's template
	 */
	public LockTemplate template(LockOptions options, Duration commandTimeout) {
		return template(new RedisLockEngine(connectionFactory(commandTimeout), options));
	}

	/**
	 * A template on the given engine, closed with the others.
	 * @param engine the engine
	 * @return the template
	 */
	public LockTemplate template(LockEngine engine) {
		LockTemplate template = new LockTemplate(engine);
		this.resources.add(template);
		this.diagnostics.put(template, engine.diagnostics());
		prepare(template);
		return template;
	}

	/**
	 * The diagnostics of the engine of a template made here.
	 * @param template a template made by this fixture
	 * @return its engine's diagnostics
	 * @throws IllegalArgumentException if the template was made elsewhere
	 */
	public LockDiagnostics diagnostics(LockTemplate template) {
		LockDiagnostics found = this.diagnostics.get(template);
		if (found == null) {
			throw new IllegalArgumentException(template + " was not made by this fixture");
		}
		return found;
	}

	/**
	 * A new connection factory on the topology, destroyed on {@link #close()}.
	 * @return the started factory
	 */
	public LettuceConnectionFactory connectionFactory() {
		return connectionFactory(COMMAND_TIMEOUT);
	}

	/**
	 * A new connection factory on the topology, destroyed on {@link #close()}.
	 * @param commandTimeout the command timeout
	 * @return the started factory
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		return startLater(createConnectionFactory(LettuceClientConfiguration.builder().commandTimeout(commandTimeout)));
	}

	/**
	 * A template whose every connection goes through a fault proxy in front of each
	 * server of the topology ({@link #servers()}), for tests that cut connections and
	 * hold back replies. Closed on {@link #close()}, the proxies passing everything again
	 * first, so that the engine closes as it would on a healthy network.
	 * @param options the engine's options
	 * @return the template and the proxies
	 */
	public Proxied proxied(LockOptions options) {
		ProxiedServers servers = closeLater(new ProxiedServers(servers()));
		LettuceConnectionFactory factory = startLater(createConnectionFactory(LettuceClientConfiguration.builder()
			.commandTimeout(COMMAND_TIMEOUT)
			.clientResources(servers.clientResources())));
		LockTemplate template = template(new RedisLockEngine(factory, options));
		closeLater(() -> servers.proxies().forEach(FaultProxy::pass));
		return new Proxied(template, servers.proxies());
	}

	/**
	 * A new connection factory on the topology that signs in to the Redis servers as the
	 * given ACL user (the sentinels of a group are asked without), destroyed on
	 * {@link #close()}.
	 * @param username the user
	 * @param password its password
	 * @return the started factory
	 */
	public LettuceConnectionFactory connectionFactory(String username, String password) {
		LettuceConnectionFactory factory = createConnectionFactory(
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT));
		RedisConfiguration.WithAuthentication servers = (factory.getClusterConfiguration() != null)
				? factory.getClusterConfiguration() : (factory.getSentinelConfiguration() != null)
						? factory.getSentinelConfiguration() : factory.getStandaloneConfiguration();
		servers.setUsername(username);
		servers.setPassword(password);
		return startLater(factory);
	}

	private LettuceConnectionFactory startLater(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		closeLater(factory::destroy);
		return factory;
	}

	/**
	 * A client for application data on a connection of its own, as an application would
	 * have it; on a cluster it follows redirects.
	 * @return the client
	 */
	public StringRedisTemplate data() {
		return new StringRedisTemplate(connectionFactory());
	}

	/**
	 * A connection to the server that holds the keys of the lock now, closed on
	 * {@link #close()}.
	 * @param name the lock name
	 * @return the connection
	 */
	public RedisCli cli(String name) {
		return closeLater(serverOf(name).cli());
	}

	/**
	 * The server that holds the keys of the lock now: the one server, the primary of the
	 * lock's slot, or the primary the sentinels agreed on.
	 * @param name the lock name
	 * @return the server
	 */
	public abstract RedisServer serverOf(String name);

	/**
	 * Every server that holds lock keys now (the primaries of a cluster).
	 * @return the servers
	 */
	public abstract List<RedisServer> primaries();

	/**
	 * Every server that lock clients may be connected to, replicas included.
	 * @return the servers
	 */
	public List<RedisServer> servers() {
		return primaries();
	}

	/**
	 * Lock names {@code stem-0}, {@code stem-1}, … that together hit every server that
	 * holds lock keys, {@code perServer} of them on each.
	 * @param stem the start of each name
	 * @param perServer how many names each server holds the keys of
	 * @return the names
	 */
	public List<String> names(String stem, int perServer) {
		List<String> names = new ArrayList<>();
		for (int i = 0; i < perServer; i++) {
			names.add(stem + "-" + i);
		}
		return names;
	}

	/**
	 * Lock names {@code stem-0}, {@code stem-1}, … whose leases the watchdog may renew in
	 * one script call: any names on one server; a subclass narrows them where a call may
	 * touch only some keys together.
	 * @param stem the start of each name
	 * @param count how many names
	 * @return the names
	 */
	public List<String> namesRenewedTogether(String stem, int count) {
		List<String> names = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			names.add(stem + "-" + i);
		}
		return names;
	}

	/** Delete every key of the topology; replicas follow their primaries. */
	public void flush() {
		for (RedisServer primary : primaries()) {
			try (RedisCli cli = primary.cli()) {
				cli.flushAll();
			}
		}
	}

	/**
	 * The keys that match the pattern on every server that holds lock keys.
	 * @param pattern a {@code KEYS} pattern
	 * @return the keys
	 */
	public List<String> keys(String pattern) {
		List<String> keys = new ArrayList<>();
		for (RedisServer primary : primaries()) {
			try (RedisCli cli = primary.cli()) {
				keys.addAll(cli.keys(pattern));
			}
		}
		return keys;
	}

	/**
	 * Calls of each command so far on every server that holds lock keys, from INFO
	 * commandstats, e.g. {"evalsha": 12}.
	 * @return the calls by command name
	 */
	public Map<String, Long> commandCalls() {
		Map<String, Long> calls = new HashMap<>();
		for (RedisServer primary : primaries()) {
			try (RedisCli cli = primary.cli()) {
				CommandStats.commandCalls(cli).forEach((command, count) -> calls.merge(command, count, Long::sum));
			}
		}
		return calls;
	}

	/**
	 * Commands that lock clients sent so far to the servers that hold lock keys: see
	 * {@link CommandStats#roundTrips(RedisCli)}.
	 * @return the number of round trips
	 */
	public long roundTrips() {
		return CommandStats.roundTrips(commandCalls());
	}

	/**
	 * End every connection of lock clients that is subscribed to release messages, on
	 * every server, so that their clients reconnect.
	 */
	public void killSubscriptions() {
		for (RedisServer server : servers()) {
			try (RedisCli cli = server.cli()) {
				cli.command("CLIENT", "KILL", "TYPE", "pubsub");
			}
		}
	}

	/**
	 * The lock channels subscribed on every server, plain or sharded.
	 * @return the channels, once per server that has them
	 */
	@SuppressWarnings("unchecked")
	public List<String> subscribedLockChannels() {
		List<String> channels = new ArrayList<>();
		for (RedisServer server : servers()) {
			try (RedisCli cli = server.cli()) {
				channels.addAll((List<String>) cli.command("PUBSUB", "CHANNELS", lockKey("*")));
				if (Integer.parseInt(server.version().split("\\.")[0]) >= 7) {
					channels.addAll((List<String>) cli.command("PUBSUB", "SHARDCHANNELS", lockKey("*")));
				}
			}
		}
		return channels;
	}

	/**
	 * Registers something to close, last registered first, on {@link #close()}.
	 * @param <T> its type
	 * @param resource the resource
	 * @return the resource
	 */
	public <T extends AutoCloseable> T closeLater(T resource) {
		this.resources.add(resource);
		return resource;
	}

	/**
	 * A connection factory on the topology, not yet started.
	 * @param client the client's configuration so far (its command timeout, and the
	 * resources that send it through proxies when it has any), to which the topology adds
	 * its own options
	 * @return the factory
	 */
	protected abstract LettuceConnectionFactory createConnectionFactory(LettuceClientConfigurationBuilder client);

	/**
	 * Called with each new template before a test uses it; does nothing unless a topology
	 * needs its nodes warmed up.
	 * @param template the new template
	 */
	protected void prepare(LockTemplate template) {
	}

	@Override
	public void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		this.resources.clear();
	}

	/**
	 * The key of a lock with the default prefix.
	 * @param name the lock name
	 * @return the key
	 */
	public static String lockKey(String name) {
		return LockOptions.DEFAULT_KEY_PREFIX + "{" + name + "}";
	}

	/**
	 * Connects the node and loads its scripts with a lock on a key of its own, under a
	 * lease long enough that a cold first acquisition cannot outlast it.
	 * @param template the node
	 */
	public static void warmUp(LockTemplate template) {
		template.run(LockRequest.of("warm-up").leaseTime(Duration.ofMinutes(1)), () -> {
		});
	}

	/**
	 * An executor whose threads carry a name of their own, so that a test can tell its
	 * waiters from threads that other tests left behind; virtual threads when
	 * {@link CallerThreads} says so.
	 * @param name the start of the thread names
	 * @return the executor
	 */
	public static ExecutorService executor(String name) {
		return Executors.newCachedThreadPool(CallerThreads.factory(name + "-" + System.nanoTime() + "-"));
	}

	/**
	 * A template reached through fault proxies, and the proxies: {@link #proxied}.
	 *
	 * @param template the template, whose engine connects through the proxies only
	 * @param proxies one proxy in front of each server
	 */
	public record Proxied(LockTemplate template, List<FaultProxy> proxies) {
	}

}
