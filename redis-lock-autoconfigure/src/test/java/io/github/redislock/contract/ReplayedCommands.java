package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * One run of {@link ReplayedCommandContract}: {@value #THREADS} threads of one JVM lock
 * {@value #KEYS} keys (one or two threads a key) through the proxies, while each of
 * {@value #ROUNDS} rounds holds every reply back until Redis ran 50 more scripts, then
 * ends the connections (cleanly or with a reset, in turn), so that Lettuce sends the
 * commands again. An overlap of two holders, a thread timed out on a lock nobody uses, or
 * any lock state left in Redis fails it.
 */
final class ReplayedCommands {

	private static final int THREADS = 96;

	private static final int KEYS = 64;

	private static final int ROUNDS = 6;

	private final LockFixture locks;

	private final ExecutorService executor;

	ReplayedCommands(LockFixture locks, ExecutorService executor) {
		this.locks = locks;
		this.executor = executor;
	}

	void exercise(LockMode mode, boolean fair) throws Exception {
		LockFixture.Proxied proxied = this.locks
			.proxied(LockOptions.defaults().withKeyPrefix(ReplayedCommandContract.REPLAY_PREFIX));
		LockTemplate template = proxied.template();
		List<FaultProxy> proxies = proxied.proxies();
		LockFixture.warmUp(template);
		// Connected through the proxies, or holding their replies would prove nothing.
		assertThat(proxies.stream().mapToInt(FaultProxy::connectionCount).sum()).as("connections through proxies")
			.isPositive();
		AtomicBoolean running = new AtomicBoolean(true);
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		CriticalSections sections = new CriticalSections();
		List<Future<?>> workers = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			String key = "key-" + (i % KEYS);
			workers.add(this.executor.submit(() -> {
				LockRequest request = LockRequest.of(key).mode(mode).fair(fair).waitTime(Duration.ofSeconds(15));
				while (running.get()) {
					try (LockHandle handle = template.lock(request)) {
						CriticalSections.Section section = sections.enter(key, template, handle.fencingToken());
						Thread.onSpinWait();
						sections.exit(section);
					}
					catch (LockAccessException ex) {
						// Redis did not answer in time: allowed, as long as nothing stays
						// locked.
					}
					catch (LockTimeoutException ex) {
						failures.add(new AssertionError(heldTooLong(template, key), ex));
					}
					catch (Throwable ex) {
						failures.add(ex);
					}
				}
			}));
		}
		for (int round = 0; round < ROUNDS; round++) {
			long before = scriptCalls();
			proxies.forEach(FaultProxy::holdReplies);
			// Redis runs the commands sent meanwhile; their answers wait in the proxy.
			await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() - before >= 50);
			boolean clean = round % 2 == 0;
			proxies.forEach(clean ? FaultProxy::endConnections : FaultProxy::closeConnections);
			proxies.forEach(FaultProxy::pass);
			long after = scriptCalls();
			await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() - after >= 200);
		}
		running.set(false);
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(failures).isEmpty();
		assertThat(sections.overlaps(true)).as("holders of one lock at once").isEmpty();
		for (int i = 0; i < KEYS; i++) {
			String key = "key-" + i;
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(held(key)
						+ existing(key, lockKey(key) + ":rw", lockKey(key) + ":rw:writer", lockKey(key) + ":permits"))
					.as("lock state of %s", key)
					.isZero());
		}
	}

	/**
	 * What a thread that timed out found: who holds the lock in Redis and for how long,
	 * and what the engine knows (its holds and waiters, releases it retries in the
	 * background, its subscription), so that a rare failure tells where a release went.
	 */
	private String heldTooLong(LockTemplate template, String key) {
		return "Timed out on " + key + " held by " + command(key, "GET", lockKey(key)) + " for "
				+ command(key, "PTTL", lockKey(key)) + " ms more; this JVM holds "
				+ this.locks.diagnostics(template).snapshot() + ", " + this.locks.diagnostics(template);
	}

	private long scriptCalls() {
		return CommandStats.scriptCalls(this.locks.commandCalls());
	}

	private static String lockKey(String name) {
		return ReplayedCommandContract.REPLAY_PREFIX + "{" + name + "}";
	}

	/**
	 * 1 when the lock key holds a holder, 0 when there is none or the tombstone of a
	 * release.
	 */
	private long held(String name) {
		return (LockKeyValues.holder((String) command(name, "GET", lockKey(name))) != null) ? 1 : 0;
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
		try (RedisCli cli = this.locks.serverOf(name).cli()) {
			return cli.command(command);
		}
	}

}
