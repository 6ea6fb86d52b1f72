package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Lock templates on a test server, each with an engine and a connection factory of its
 * own (a "node"), closed together; tests observe a node through its engine's
 * {@linkplain #diagnostics(LockTemplate) diagnostics}. Command timeouts are short so that
 * fault tests fail fast.
 */
final class TestLocks implements AutoCloseable {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private final RedisServer server;

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final Map<LockTemplate, LockDiagnostics> diagnostics = new IdentityHashMap<>();

	TestLocks(RedisServer server) {
		this.server = server;
	}

	LockTemplate template() {
		return template(LockOptions.defaults());
	}

	LockTemplate template(LockOptions options) {
		return template(new RedisLockEngine(connectionFactory(), options));
	}

	LockTemplate template(LockOptions options, LockObserver observer) {
		return template(new RedisLockEngine(connectionFactory(), options, observer));
	}

	/** A template on the given engine, closed with the others. */
	LockTemplate template(LockEngine engine) {
		LockTemplate template = new LockTemplate(engine);
		this.resources.add(template);
		this.diagnostics.put(template, engine.diagnostics());
		return template;
	}

	/** The diagnostics of the engine of a template made here. */
	LockDiagnostics diagnostics(LockTemplate template) {
		LockDiagnostics found = this.diagnostics.get(template);
		if (found == null) {
			throw new IllegalArgumentException(template + " was not made by this fixture");
		}
		return found;
	}

	LettuceConnectionFactory connectionFactory() {
		LettuceConnectionFactory factory = connectionFactory(this.server, COMMAND_TIMEOUT);
		this.resources.add(factory::destroy);
		return factory;
	}

	RedisCli cli() {
		RedisCli cli = this.server.cli();
		this.resources.add(cli);
		return cli;
	}

	static LettuceConnectionFactory connectionFactory(RedisServer server, Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** Calls of each command so far, from INFO commandstats, e.g. {"evalsha": 12}. */
	static Map<String, Long> commandCalls(RedisCli cli) {
		Map<String, Long> calls = new java.util.HashMap<>();
		for (String line : cli.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String stats = line.substring(line.indexOf(':') + 1);
				String callsField = stats.substring(stats.indexOf("calls=") + 6);
				calls.put(name, Long.parseLong(callsField.substring(0, callsField.indexOf(','))));
			}
		}
		return calls;
	}

	/**
	 * Commands that lock clients sent so far: scripts and subscriptions. Commands that
	 * scripts run inside Redis are counted by INFO too, but cost no round trip, so they
	 * are left out.
	 */
	static long roundTrips(RedisCli cli) {
		return commandCalls(cli).entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith("eval") || entry.getKey().contains("subscribe"))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

	/**
	 * An executor whose threads carry a name of their own, so that a test can tell its
	 * waiters from threads that other tests left behind.
	 */
	static ExecutorService executor(String name) {
		AtomicInteger count = new AtomicInteger();
		String prefix = name + "-" + System.nanoTime() + "-";
		return Executors.newCachedThreadPool((task) -> new Thread(task, prefix + count.incrementAndGet()));
	}

	@Override
	public void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

}
