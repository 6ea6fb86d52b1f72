package io.github.redislock.faults;

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
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connections ended while many commands are in flight and their answers are lost: Redis
 * ran them, and Lettuce sends them again after reconnecting. A replayed acquisition must
 * be taken for the caller's own grant, a replayed release for a release, so that no
 * thread waits for its own lock, none is told a lock it released was lost, and nothing
 * stays locked.
 */
@RedisTest
class ReplayedCommandTests {

	private static final String PREFIX = "replay:";

	private static final int THREADS = 64;

	private static final int KEYS = 48;

	private static final int ROUNDS = 6;

	private RedisServer server;

	private FaultProxy proxy;

	private FaultLocks locks;

	private RedisCli cli;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.server = server;
		this.proxy = FaultProxy.start(server.host(), server.port());
		this.locks = new FaultLocks();
		this.cli = server.cli();
		this.executor = Executors.newFixedThreadPool(THREADS);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.proxy.pass();
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
		this.proxy.close();
		this.cli.close();
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
		LockTemplate template = this.locks.template(this.proxy.host(), this.proxy.port(),
				LockOptions.defaults().withKeyPrefix(PREFIX), new CountingObserver());
		FaultLocks.warmUp(template);
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
					catch (Throwable ex) {
						failures.add(ex);
					}
				}
			}));
		}
		for (int round = 0; round < ROUNDS; round++) {
			long before = scriptCalls();
			this.proxy.holdReplies();
			// Redis runs the commands sent meanwhile; their answers wait in the proxy.
			await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() - before >= 50);
			if (round % 2 == 0) {
				this.proxy.endConnections();
			}
			else {
				this.proxy.closeConnections();
			}
			this.proxy.pass();
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
				.untilAsserted(() -> assertThat(this.cli.command("EXISTS", PREFIX + "{" + key + "}",
						PREFIX + "{" + key + "}:rw", PREFIX + "{" + key + "}:rw:writer"))
					.as("lock state of %s", key)
					.isEqualTo(0L));
		}
	}

	/** How many scripts Redis ran so far. */
	private long scriptCalls() {
		long calls = 0;
		for (String line : this.cli.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				String rest = line.substring(line.indexOf("calls=") + 6);
				calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
			}
		}
		return calls;
	}

}
