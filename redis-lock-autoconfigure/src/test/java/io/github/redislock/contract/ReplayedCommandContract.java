package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connections ended while many commands are in flight and their answers are lost: Redis
 * ran them, and Lettuce sends them again after reconnecting. A replayed acquisition must
 * be taken for the caller's own grant, a replayed release for a release, so that no
 * thread waits for its own lock, none is told a lock it released was lost, and nothing
 * stays locked. Subclasses supply the topology, reached through fault proxies: a
 * standalone server, a Redis Cluster and a Sentinel group.
 */
abstract class ReplayedCommandContract {

	static final String PREFIX = "replay:";

	private static final int THREADS = 96;

	private static final int KEYS = 64;

	private static final int ROUNDS = 6;

	private ExecutorService executor;

	/**
	 * The fixture on the topology, unproxied: it reads Redis directly and knows the
	 * diagnostics of the template.
	 */
	protected abstract LockFixture locks();

	/**
	 * A template made by {@link #locks()} whose connections all go through
	 * {@link #proxies()}.
	 */
	protected abstract LockTemplate proxiedTemplate(LockOptions options);

	/** The proxies between the template and every Redis server. */
	protected abstract List<FaultProxy> proxies();

	@BeforeEach
	void startExecutor() {
		this.executor = Executors.newFixedThreadPool(THREADS);
	}

	@AfterEach
	void stopExecutor() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
	}

	@Test
	void exclusiveLocksSurviveRepliesLostAndCommandsReplayed() throws Exception {
		exercise(LockMode.EXCLUSIVE, false);
	}

	@Test
	void fairLocksSurviveRepliesLostAndCommandsReplayed() throws Exception {
		exercise(LockMode.EXCLUSIVE, true);
	}

	@Test
	void writeLocksSurviveRepliesLostAndCommandsReplayed() throws Exception {
		exercise(LockMode.WRITE, false);
	}

	private void exercise(LockMode mode, boolean fair) throws Exception {
		LockTemplate template = proxiedTemplate(LockOptions.defaults().withKeyPrefix(PREFIX));
		LockFixture.warmUp(template);
		// Connected through the proxies, or holding their replies would prove nothing.
		assertThat(proxies().stream().mapToInt(FaultProxy::connectionCount).sum()).as("connections through proxies")
			.isPositive();
		AtomicBoolean running = new AtomicBoolean(true);
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		ConcurrentHashMap<String, AtomicReference<Thread>> inside = new ConcurrentHashMap<>();
		List<Future<?>> workers = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			String key = "key-" + (i % KEYS);
			workers.add(this.executor.submit(() -> {
				LockRequest request = LockRequest.of(key).mode(mode).fair(fair).waitTime(Duration.ofSeconds(15));
				while (running.get()) {
					try (LockHandle handle = template.lock(request)) {
						AtomicReference<Thread> holder = inside.computeIfAbsent(key, (name) -> new AtomicReference<>());
						if (!holder.compareAndSet(null, Thread.currentThread())) {
							failures.add(new AssertionError("Two holders of " + key + " at once"));
						}
						Thread.onSpinWait();
						holder.set(null);
					}
					catch (LockAccessException ex) {
						// Redis did not answer in time: allowed, as long as nothing stays
						// locked.
					}
					catch (LockTimeoutException ex) {
						String lockKey = PREFIX + "{" + key + "}";
						failures
							.add(new AssertionError("Timed out on " + key + " held by " + command(key, "GET", lockKey)
									+ " for " + command(key, "PTTL", lockKey) + " ms more; this JVM holds "
									+ locks().diagnostics(template).snapshot() + ", " + locks().diagnostics(template),
									ex));
					}
					catch (Throwable ex) {
						failures.add(ex);
					}
				}
			}));
		}
		for (int round = 0; round < ROUNDS; round++) {
			long before = scriptCalls();
			proxies().forEach(FaultProxy::holdReplies);
			// Redis runs the commands sent meanwhile; their answers wait in the proxy.
			await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() - before >= 50);
			boolean clean = round % 2 == 0;
			proxies().forEach(clean ? FaultProxy::endConnections : FaultProxy::closeConnections);
			proxies().forEach(FaultProxy::pass);
			long after = scriptCalls();
			await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() - after >= 200);
		}
		running.set(false);
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(failures).isEmpty();
		for (int i = 0; i < KEYS; i++) {
			String key = "key-" + i;
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(
						held(key) + existing(key, PREFIX + "{" + key + "}:rw", PREFIX + "{" + key + "}:rw:writer"))
					.as("lock state of %s", key)
					.isZero());
		}
	}

	private long scriptCalls() {
		return CommandStats.scriptCalls(locks().commandCalls());
	}

	/**
	 * 1 when the lock key holds a holder, 0 when there is none or the tombstone of a
	 * release.
	 */
	private long held(String name) {
		return (LockKeyValues.holder((String) command(name, "GET", PREFIX + "{" + name + "}")) != null) ? 1 : 0;
	}

	/** How many of the given keys of one lock exist in Redis. */
	private long existing(String name, String... keys) {
		String[] command = new String[keys.length + 1];
		command[0] = "EXISTS";
		System.arraycopy(keys, 0, command, 1, keys.length);
		return (Long) command(name, command);
	}

	/** Runs a command on the Redis server that holds the keys of the lock. */
	private Object command(String name, String... command) {
		try (RedisCli cli = locks().serverOf(name).cli()) {
			return cli.command(command);
		}
	}

}
