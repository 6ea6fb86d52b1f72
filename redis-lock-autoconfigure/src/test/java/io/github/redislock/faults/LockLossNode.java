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
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;

/**
 * Main class of a JVM of the lock-loss nemesis test ({@link LockLossNemesisTests}): an
 * engine with {@link LockLossWorker} threads. Arguments, each {@code name=value}:
 * {@code name} of the node, {@code lock} (the address the engine uses, a fault proxy),
 * {@code direct} (the lock Redis itself, for {@code TIME}), {@code control} (the control
 * Redis, see {@link NodeControl}), {@code seed}, {@code threads} and {@code history} (the
 * file to write). Prints {@code READY}, starts on a token pushed to
 * {@link NemesisSettings#START}, runs until {@link NemesisSettings#STOP} is set, then
 * prints its engine's diagnostics ({@code IDLE held=0 waiters=0} when all is well) and
 * keeps its engine open, so that the test sees what Redis holds before a close could
 * release it; on a token pushed to {@link LockLossSettings#EXIT} it closes, writes its
 * history, prints {@code DONE} and exits 0 (1 when the harness itself failed).
 */
final class LockLossNode {

	private LockLossNode() {
	}

	public static void main(String[] args) {
		try {
			run(arguments(args));
			System.out.println("DONE");
			System.out.flush();
			System.exit(0);
		}
		catch (Throwable ex) {
			ex.printStackTrace(System.out);
			System.out.flush();
			System.exit(1);
		}
	}

	private static void run(Map<String, String> args) throws Exception {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		String name = args.get("name");
		long seed = Long.parseLong(args.get("seed"));
		String[] control = args.get("control").split(":");
		String[] direct = args.get("direct").split(":");
		LettuceConnectionFactory factory = connectionFactory(args.get("lock"));
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
		RedisLockEngine engine = new RedisLockEngine(factory,
				LockOptions.defaults().withWatchdog(LockLossSettings.WATCHDOG_LEASE, LockLossSettings.RENEW_INTERVAL));
		List<RedisCli> clocks = new ArrayList<>();
		try (LockTemplate template = new LockTemplate(engine);
				RedisCli cli = new RedisCli(control[0], Integer.parseInt(control[1]), Duration.ofSeconds(130));
				RedisCli polling = new RedisCli(control[0], Integer.parseInt(control[1]))) {
			System.out.println("READY " + name);
			System.out.flush();
			if (cli.command("BLPOP", NemesisSettings.START, "60") == null) {
				throw new IllegalStateException("No start token within 60 seconds");
			}
			NodeControl nodeControl = new NodeControl(polling);
			Thread poller = new Thread(nodeControl, name + "-control");
			List<Thread> threads = new ArrayList<>();
			for (int i = 0; i < Integer.parseInt(args.get("threads")); i++) {
				RedisCli clock = new RedisCli(direct[0], Integer.parseInt(direct[1]), Duration.ofSeconds(3));
				clocks.add(clock);
				String worker = name + "-w" + i;
				threads.add(new Thread(new LockLossWorker(worker, name, engine, template, nodeControl, clock, history,
						seed * 1000 + worker.hashCode()), worker));
			}
			poller.start();
			threads.forEach(Thread::start);
			for (Thread thread : threads) {
				thread.join();
			}
			poller.join();
			System.out.println("IDLE " + idle(engine.diagnostics()));
			System.out.flush();
			if (cli.command("BLPOP", LockLossSettings.EXIT, "120") == null) {
				throw new IllegalStateException("No exit token within 120 seconds");
			}
		}
		finally {
			clocks.forEach(RedisCli::close);
			synchronized (writer) {
				writer.close();
			}
			factory.destroy();
		}
	}

	/**
	 * The engine's holds and waiters once every worker returned, after up to 5 seconds
	 * for releases still in flight.
	 */
	private static String idle(LockDiagnostics diagnostics) throws InterruptedException {
		long deadline = System.currentTimeMillis() + 5000;
		while (System.currentTimeMillis() < deadline && (diagnostics.heldCount() > 0 || diagnostics.waiterCount() > 0
				|| diagnostics.retriedReleaseCount() > 0)) {
			Thread.sleep(50);
		}
		return "held=" + diagnostics.heldCount() + " waiters=" + diagnostics.waiterCount() + " retried="
				+ diagnostics.retriedReleaseCount() + " snapshot=" + diagnostics.snapshot();
	}

	private static LettuceConnectionFactory connectionFactory(String address) {
		String[] hostAndPort = address.split(":");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(hostAndPort[0], Integer.parseInt(hostAndPort[1])),
				LettuceClientConfiguration.builder().commandTimeout(LockLossSettings.COMMAND_TIMEOUT).build());
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

}
