package io.github.redislock.faults;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;

/**
 * Main class of a JVM of the nemesis test ({@link NemesisTests}): a lock template with
 * hot-key threads ({@link HotKeyWorker}) and storm threads ({@link StormWorker}).
 * Arguments, each {@code name=value}: {@code name} of the node, {@code lock} (the address
 * the lock template uses, a fault proxy) or {@code cluster} (comma-separated seeds),
 * {@code direct} (the lock Redis itself, for inspection), {@code control} (the control
 * and resource Redis), {@code seed}, {@code hot} and {@code storm} (thread counts) and
 * {@code history} (the file to write). Prints {@code READY}, starts on a token pushed to
 * {@link NemesisSettings#START}, runs until {@link NemesisSettings#STOP} is set, writes
 * its history, prints {@code DONE} and exits 0 (1 when the harness itself failed).
 */
final class NemesisNode {

	private NemesisNode() {
	}

	public static void main(String[] args) {
		try {
			run(arguments(args));
			print("DONE");
			System.exit(0);
		}
		catch (Throwable ex) {
			ex.printStackTrace(System.out);
			System.out.flush();
			System.exit(1);
		}
	}

	private static void run(Map<String, String> args) throws Exception {
		// Lettuce at DEBUG under load would fill the test's memory with output.
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		String name = args.get("name");
		long seed = Long.parseLong(args.get("seed"));
		LettuceConnectionFactory lockFactory = connectionFactory(lockConfiguration(args, "lock"));
		LettuceConnectionFactory directFactory = connectionFactory(lockConfiguration(args, "direct"));
		StringRedisTemplate direct = new StringRedisTemplate(directFactory);
		// Written as it happens: a long run would not fit in memory.
		BufferedWriter writer = Files.newBufferedWriter(Path.of(args.get("history")));
		Consumer<String> history = (line) -> {
			synchronized (writer) {
				try {
					writer.write(line);
					writer.newLine();
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}
		};
		String[] control = args.get("control").split(":");
		RedisLockEngine engine = new RedisLockEngine(lockFactory,
				LockOptions.defaults().withWatchdog(NemesisSettings.LEASE, NemesisSettings.RENEW_INTERVAL));
		try (LockTemplate template = new LockTemplate(engine);
				RedisCli cli = new RedisCli(control[0], Integer.parseInt(control[1]), Duration.ofSeconds(70))) {
			String instanceId = instanceId(template, direct, name);
			history.accept("I " + name + " " + instanceId);
			LockInspector inspector = new LockInspector(direct, instanceId);
			LockAttempts attempts = new LockAttempts(name, template, engine.diagnostics(), inspector, history);
			print("READY " + name);
			if (cli.command("BLPOP", NemesisSettings.START, "60") == null) {
				throw new IllegalStateException("No start token within 60 seconds");
			}
			NodeControl nodeControl = new NodeControl(cli);
			List<Thread> threads = new ArrayList<>();
			List<RedisCli> clis = new ArrayList<>();
			try {
				int hot = Integer.parseInt(args.get("hot"));
				for (int i = 0; i < hot; i++) {
					// Longer than the nemesis pauses this JVM: a read in progress counts
					// the pause against its timeout.
					RedisCli workerCli = new RedisCli(control[0], Integer.parseInt(control[1]), Duration.ofSeconds(30));
					clis.add(workerCli);
					String worker = name + "-h" + i;
					threads.add(new Thread(
							new HotKeyWorker(worker, attempts, nodeControl, workerCli, seed * 1000 + worker.hashCode()),
							worker));
				}
				for (int i = 0; i < Integer.parseInt(args.get("storm")); i++) {
					String worker = name + "-s" + i;
					threads.add(new Thread(
							new StormWorker(worker, attempts, nodeControl, seed * 1000 + worker.hashCode()), worker));
				}
				Thread poller = new Thread(nodeControl, name + "-control");
				poller.start();
				threads.forEach(Thread::start);
				for (Thread thread : threads) {
					thread.join();
				}
				poller.join();
			}
			finally {
				clis.forEach(RedisCli::close);
			}
		}
		finally {
			synchronized (writer) {
				writer.close();
			}
			lockFactory.destroy();
			directFactory.destroy();
		}
	}

	/**
	 * Connects, loads the scripts, and learns the instance id of the template's engine:
	 * the first part of the owner token of a lock it holds.
	 */
	private static String instanceId(LockTemplate template, StringRedisTemplate direct, String name) {
		String key = "instance-" + name;
		try (LockHandle handle = template.lock(LockRequest.of(key).leaseTime(Duration.ofMinutes(1)))) {
			String owner = LockKeyValues.holder(direct.opsForValue().get(NemesisSettings.KEY_PREFIX + "{" + key + "}"));
			if (owner == null || !owner.contains(":")) {
				throw new IllegalStateException("No owner token in Redis for " + handle);
			}
			return owner.substring(0, owner.indexOf(':'));
		}
	}

	private static RedisConfiguration lockConfiguration(Map<String, String> args, String address) {
		if (args.containsKey("cluster")) {
			return new RedisClusterConfiguration(List.of(args.get("cluster").split(",")));
		}
		String[] hostAndPort = args.get(address).split(":");
		return new RedisStandaloneConfiguration(hostAndPort[0], Integer.parseInt(hostAndPort[1]));
	}

	private static LettuceConnectionFactory connectionFactory(RedisConfiguration configuration) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(NemesisSettings.COMMAND_TIMEOUT);
		if (configuration instanceof RedisClusterConfiguration) {
			// Follows failovers and slot moves within a second or so.
			client.clientOptions(ClusterClientOptions.builder()
				.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
					.enableAllAdaptiveRefreshTriggers()
					.enablePeriodicRefresh(Duration.ofSeconds(1))
					.build())
				.build());
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static Map<String, String> arguments(String[] args) {
		Map<String, String> arguments = new HashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			arguments.put(arg.substring(0, equals), arg.substring(equals + 1));
		}
		return arguments;
	}

	private static void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
