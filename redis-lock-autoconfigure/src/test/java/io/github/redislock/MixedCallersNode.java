package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;

/**
 * One JVM of {@link MixedCallersMultiJvmTests}: blocking threads that lock with
 * {@link LockTemplate} and reactive chains that lock with {@link ReactiveLockTemplate},
 * both on one engine, take the same few locks at once, and run the same critical section,
 * the blocking one with blocking commands, the reactive one with Lettuce's reactive API.
 * Which lock each operation takes, and how long each section lasts, come from the seed.
 * As a main class, its arguments are host, port, node name and seed: it warms up, prints
 * {@code READY}, waits for a start token pushed to {@value #START_LIST}, runs, prints
 * {@code DONE <grants>} and exits 0 (1 on any failure).
 *
 * <p>
 * The critical section detects in Redis itself, so that it sees every JVM: an overlap
 * (the section's marker, set with {@code SET NX} on entry and deleted on exit, found
 * already set), a lost increment (a counter incremented with a {@code GET} and a
 * {@code SET}, against an atomic count of grants), and a stale fencing token (a token not
 * greater than the last one the key's fence saw, checked and recorded by one script).
 */
final class MixedCallersNode implements AutoCloseable {

	static final String START_LIST = "mixed:start";

	/** Overlaps seen by any section, and what overlapped. */
	static final String OVERLAPS = "mixed:overlaps";

	/** Tokens that reached a fence no greater than the one it had seen. */
	static final String STALE = "mixed:stale";

	static final List<String> KEYS = List.of("mixed:a", "mixed:b");

	static final int BLOCKING_THREADS = 2;

	static final int BLOCKING_OPERATIONS = 30;

	static final int REACTIVE_OPERATIONS = 60;

	/** Reactive chains that ask for a lock at once. */
	static final int REACTIVE_CONCURRENCY = 16;

	static final int OPERATIONS = BLOCKING_THREADS * BLOCKING_OPERATIONS + REACTIVE_OPERATIONS;

	private static final Duration WAIT_TIME = Duration.ofSeconds(30);

	private static final Duration START_WAIT = Duration.ofSeconds(120);

	private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

	/** Longest pause between a section's read and its write, in microseconds. */
	private static final int MAX_THINK_MICROS = 1000;

	/**
	 * KEYS[1] the lock's fence, KEYS[2] the list of stale tokens; ARGV[1] the holder's
	 * token, ARGV[2] who holds it. Reply: 1 when the token is greater than any seen
	 * before (and recorded), else 0 (and the holder listed as stale).
	 */
	private static final RedisScript<Long> FENCE = RedisScript.of("""
			local last = redis.call('get', KEYS[1])
			if last and tonumber(ARGV[1]) <= tonumber(last) then
				redis.call('rpush', KEYS[2], ARGV[2] .. ' token ' .. ARGV[1] .. ' after ' .. last)
				return 0
			end
			redis.call('set', KEYS[1], ARGV[1])
			return 1
			""", Long.class);

	private final String host;

	private final int port;

	private final String name;

	private final LettuceConnectionFactory factory;

	private final LockTemplate blocking;

	private final ReactiveLockTemplate reactive;

	private final ReactiveStringRedisTemplate redis;

	private final ExecutorService executor = Executors.newFixedThreadPool(BLOCKING_THREADS);

	/**
	 * Connect to Redis and warm up, so that the node contends at full speed from its
	 * first operation: a cold JVM would otherwise lose every race for a second or more.
	 * @param host the Redis host
	 * @param port the Redis port
	 * @param name the node name, recorded with each hold
	 */
	MixedCallersNode(String host, int port, String name) {
		this.host = host;
		this.port = port;
		this.name = name;
		this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(LockFixture.COMMAND_TIMEOUT).build());
		this.factory.afterPropertiesSet();
		this.factory.start();
		RedisLockEngine engine = new RedisLockEngine(this.factory, LockOptions.defaults().withWaitTime(WAIT_TIME));
		// One engine for both kinds of caller, as the auto-configuration sets them up
		this.blocking = new LockTemplate(engine);
		this.reactive = new ReactiveLockTemplate(engine);
		this.redis = new ReactiveStringRedisTemplate(this.factory);
		ContendingNode.warmUp(this.blocking, "mixed:warm-up:" + name);
		this.reactive.execute("mixed:warm-up:" + name, this.redis.opsForValue().get(counter("mixed:warm-up")))
			.block(WAIT_TIME);
	}

	public static void main(String[] args) {
		try (MixedCallersNode node = new MixedCallersNode(args[0], Integer.parseInt(args[1]), args[2])) {
			node.awaitStart();
			int grants = node.contend(Long.parseLong(args[3]));
			System.out.println("DONE " + grants);
			System.out.flush();
			System.exit(0);
		}
		catch (Throwable ex) {
			ex.printStackTrace(System.out);
			System.out.flush();
			System.exit(1);
		}
	}

	/**
	 * Run the node's blocking and reactive callers until each has done its operations.
	 * @param seed the seed of the locks taken and of the sections' lengths
	 * @return how many times the node was granted a lock
	 * @throws Exception if a caller failed
	 */
	int contend(long seed) throws Exception {
		Random random = new Random(seed);
		List<CompletableFuture<Integer>> callers = new ArrayList<>();
		for (int thread = 0; thread < BLOCKING_THREADS; thread++) {
			Random threadRandom = new Random(random.nextLong());
			callers.add(CompletableFuture.supplyAsync(() -> runBlocking(threadRandom), this.executor));
		}
		callers.add(runReactive(new Random(random.nextLong())).toFuture());
		int grants = 0;
		for (CompletableFuture<Integer> caller : callers) {
			grants += caller.get(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		}
		return grants;
	}

	@Override
	public void close() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.blocking.close();
		this.factory.destroy();
	}

	private void awaitStart() {
		try (RedisCli cli = new RedisCli(this.host, this.port, START_WAIT.plusSeconds(10))) {
			System.out.println("READY " + this.name);
			System.out.flush();
			if (cli.command("BLPOP", START_LIST, Long.toString(START_WAIT.toSeconds())) == null) {
				throw new IllegalStateException("No start token within " + START_WAIT.toSeconds() + " seconds");
			}
		}
	}

	private int runBlocking(Random random) {
		String who = this.name + "/blocking";
		try (RedisCli cli = new RedisCli(this.host, this.port)) {
			for (int i = 0; i < BLOCKING_OPERATIONS; i++) {
				String key = KEYS.get(random.nextInt(KEYS.size()));
				long thinkMicros = random.nextInt(MAX_THINK_MICROS);
				try (LockHandle handle = this.blocking.lock(key)) {
					blockingSection(cli, key, who, handle.fencingToken(), thinkMicros);
				}
			}
			return BLOCKING_OPERATIONS;
		}
	}

	private Mono<Integer> runReactive(Random random) {
		String who = this.name + "/reactive";
		List<String> keys = new ArrayList<>();
		List<Duration> thinkTimes = new ArrayList<>();
		for (int i = 0; i < REACTIVE_OPERATIONS; i++) {
			keys.add(KEYS.get(random.nextInt(KEYS.size())));
			thinkTimes.add(Duration.ofNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(MAX_THINK_MICROS))));
		}
		return Flux.range(0, REACTIVE_OPERATIONS)
			.flatMap(
					(i) -> this.reactive.execute(keys.get(i), ReactiveCurrentLock.fencingToken()
						.flatMap((token) -> reactiveSection(this.redis, keys.get(i), who, token, thinkTimes.get(i)))),
					REACTIVE_CONCURRENCY)
			.then(Mono.just(REACTIVE_OPERATIONS));
	}

	private static void blockingSection(RedisCli cli, String key, String who, long token, long thinkMicros) {
		boolean entered = "OK".equals(cli.command("SET", inside(key), who, "NX"));
		if (!entered) {
			cli.command("RPUSH", OVERLAPS, who + " entered " + key + " held by " + cli.get(inside(key)));
		}
		String value = cli.get(counter(key));
		long next = ((value != null) ? Long.parseLong(value) : 0) + 1;
		think(thinkMicros);
		cli.set(counter(key), Long.toString(next));
		cli.command("EVAL", FENCE.getScriptAsString(), "2", fence(key), STALE, Long.toString(token), who);
		cli.command("RPUSH", holds(key), who + " " + token);
		cli.command("INCR", grants(key));
		if (entered) {
			cli.command("DEL", inside(key));
		}
	}

	private static Mono<Long> reactiveSection(ReactiveStringRedisTemplate redis, String key, String who, long token,
			Duration thinkTime) {
		return redis.opsForValue().setIfAbsent(inside(key), who).flatMap((entered) -> {
			Mono<Long> overlap = entered ? Mono.empty()
					: redis.opsForValue()
						.get(inside(key))
						.defaultIfEmpty("nobody")
						.flatMap((holder) -> redis.opsForList()
							.rightPush(OVERLAPS, who + " entered " + key + " held by " + holder));
			Mono<Long> section = redis.opsForValue()
				.get(counter(key))
				.map(Long::parseLong)
				.defaultIfEmpty(0L)
				.delayUntil((value) -> Mono.delay(thinkTime))
				.flatMap((value) -> redis.opsForValue().set(counter(key), Long.toString(value + 1)))
				.then(redis.execute(FENCE, List.of(fence(key), STALE), List.of(Long.toString(token), who)).then())
				.then(redis.opsForList().rightPush(holds(key), who + " " + token))
				.then(redis.opsForValue().increment(grants(key)));
			Mono<Long> exit = entered ? redis.delete(inside(key)) : Mono.empty();
			return overlap.then(section).flatMap((grants) -> exit.thenReturn(grants));
		});
	}

	private static void think(long micros) {
		// Widens the window between the read and the write that a second holder would
		// fall into; the reactive sections pause on a timer instead
		try {
			TimeUnit.MICROSECONDS.sleep(micros);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted in a critical section", ex);
		}
	}

	static String inside(String key) {
		return "{" + key + "}:inside";
	}

	static String counter(String key) {
		return "{" + key + "}:counter";
	}

	static String grants(String key) {
		return "{" + key + "}:grants";
	}

	static String holds(String key) {
		return "{" + key + "}:holds";
	}

	static String fence(String key) {
		return "{" + key + "}:fence";
	}

}
