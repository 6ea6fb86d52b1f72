package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.engine.LockObserver;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Lock templates on a test server, each with a connection factory of its own (a "node"),
 * closed together. Command timeouts are short so that fault tests fail fast.
 */
final class TestLocks implements AutoCloseable {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private final RedisServer server;

	private final List<AutoCloseable> resources = new ArrayList<>();

	TestLocks(RedisServer server) {
		this.server = server;
	}

	LockTemplate template() {
		return template(LockOptions.defaults());
	}

	LockTemplate template(LockOptions options) {
		LockTemplate template = new LockTemplate(connectionFactory(), options);
		this.resources.add(template);
		return template;
	}

	LockTemplate template(LockOptions options, LockObserver observer) {
		LockTemplate template = new LockTemplate(connectionFactory(), options, observer);
		this.resources.add(template);
		return template;
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

	/** How many threads of the executor are asleep waiting for a lock. */
	static long parkedWaiters(ExecutorService executor) {
		String prefix = threadNamePrefix(executor);
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().getName().startsWith(prefix))
			.filter((entry) -> entry.getKey().getState() == Thread.State.TIMED_WAITING)
			.filter((entry) -> Arrays.stream(entry.getValue())
				.anyMatch((frame) -> frame.getClassName().equals("io.github.redislock.engine.Waiter")))
			.count();
	}

	private static String threadNamePrefix(ExecutorService executor) {
		try {
			return executor.submit(() -> {
				String name = Thread.currentThread().getName();
				return name.substring(0, name.lastIndexOf('-') + 1);
			}).get();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

}
