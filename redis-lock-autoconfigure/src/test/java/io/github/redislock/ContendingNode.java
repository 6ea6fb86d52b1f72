package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;

/**
 * Main class of a JVM that contends for one lock with others, run by
 * {@link MultiJvmLockTests}. Arguments: host, port, lock name, iterations per thread,
 * threads, node name. Prints {@code READY}, waits for a start token pushed to
 * {@value #START_LIST}, runs the {@link #criticalSection critical section} under the lock
 * on every thread, prints {@code DONE <count>} and exits 0 (1 on any failure). Each
 * thread records in {@value #HOLDERS} when it first asks for the lock ({@link #asking}),
 * so that a JVM that woke late is not taken for one that waited.
 */
final class ContendingNode {

	static final String START_LIST = "multi-jvm:start";

	static final String SECTION = "multi-jvm:section";

	static final String OVERLAPS = "multi-jvm:overlaps";

	static final String COUNTER = "multi-jvm:counter";

	static final String HOLDERS = "multi-jvm:holders";

	/**
	 * First word of the entry a thread adds to {@value #HOLDERS} before its first ask.
	 */
	static final String ASKING = "ASKING";

	/**
	 * How long a node waits for the start token: the other JVMs may take long to start on
	 * a busy machine.
	 */
	static final Duration START_WAIT = Duration.ofSeconds(120);

	private ContendingNode() {
	}

	public static void main(String[] args) {
		try {
			String host = args[0];
			int port = Integer.parseInt(args[1]);
			String key = args[2];
			int iterations = Integer.parseInt(args[3]);
			int threads = Integer.parseInt(args[4]);
			String name = args[5];
			int done = run(host, port, key, iterations, threads, name);
			System.out.println("DONE " + done);
			System.out.flush();
			System.exit(0);
		}
		catch (Throwable ex) {
			ex.printStackTrace(System.out);
			System.out.flush();
			System.exit(1);
		}
	}

	private static int run(String host, int port, String key, int iterations, int threads, String name)
			throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(LockFixture.COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try (LockTemplate template = new LockTemplate(
				new RedisLockEngine(factory, LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))))) {
			warmUp(template, key + ":warm-up:" + name);
			try (RedisCli cli = new RedisCli(host, port, START_WAIT.plusSeconds(10))) {
				System.out.println("READY " + name);
				System.out.flush();
				if (cli.command("BLPOP", START_LIST, Long.toString(START_WAIT.toSeconds())) == null) {
					throw new IllegalStateException("No start token within " + START_WAIT.toSeconds() + " seconds");
				}
			}
			AtomicInteger acquired = new AtomicInteger();
			List<Future<?>> futures = new ArrayList<>();
			for (int thread = 0; thread < threads; thread++) {
				futures.add(executor.submit(() -> {
					try (RedisCli cli = new RedisCli(host, port)) {
						asking(cli, name);
						for (int i = 0; i < iterations; i++) {
							try (LockHandle handle = template.lock(key)) {
								criticalSection(cli, name, handle.fencingToken());
							}
							acquired.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
			return acquired.get();
		}
		finally {
			executor.shutdownNow();
			factory.destroy();
		}
	}

	/**
	 * Take a lock and wait for it once, so that connections are open and classes loaded
	 * before the contention starts: a cold JVM would otherwise lose every race for a
	 * second or more.
	 * @param template the template to warm up
	 * @param key a lock name used by nobody else
	 */
	static void warmUp(LockTemplate template, String key) {
		try (LockHandle handle = template.lock(key)) {
			Optional<LockHandle> waited = CompletableFuture
				.supplyAsync(() -> template.tryLock(key, Duration.ofMillis(100)))
				.join();
			if (waited.isPresent()) {
				throw new IllegalStateException("Lock " + key + " was granted twice");
			}
		}
	}

	/**
	 * Records that a thread of the node is about to ask for the lock for the first time,
	 * in the order of the holds.
	 * @param cli a connection of the calling thread
	 * @param name the node name
	 */
	static void asking(RedisCli cli, String name) {
		cli.command("RPUSH", HOLDERS, ASKING + " " + name);
	}

	/**
	 * The work done under the lock, the same in every JVM: counts overlaps with another
	 * holder in Redis itself, increments a counter with a non-atomic read and write, and
	 * records which node held the lock with which fencing token.
	 * @param cli a connection of the calling thread
	 * @param name the node name
	 * @param fencingToken the fencing token of the hold
	 */
	static void criticalSection(RedisCli cli, String name, long fencingToken) {
		long inside = (Long) cli.command("INCR", SECTION);
		if (inside != 1) {
			cli.command("INCR", OVERLAPS);
		}
		String value = cli.get(COUNTER);
		long next = ((value != null) ? Long.parseLong(value) : 0) + 1;
		Thread.yield();
		cli.set(COUNTER, Long.toString(next));
		cli.command("RPUSH", HOLDERS, name + " " + fencingToken);
		cli.command("DECR", SECTION);
	}

}
