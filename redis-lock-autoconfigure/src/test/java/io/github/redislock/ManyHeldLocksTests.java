package io.github.redislock;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import com.sun.management.OperatingSystemMXBean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.CommandStats;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One JVM keeps a great many locks held with a short watchdog lease: the watchdog must
 * renew them all within every lease, which one round trip after another cannot do. Prints
 * the time the grants took, the renewals Redis ran per second and the CPU this JVM used
 * meanwhile.
 */
class ManyHeldLocksTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	/**
	 * 100,000 locks renewed every 2 s need 50,000 renewals a second: well within what the
	 * engine reaches on a busy 2-core machine (over 100,000 a second), far beyond one
	 * round trip after another (about 10,000).
	 */
	private static final int LOCKS = 100_000;

	private static final Duration LEASE = Duration.ofSeconds(6);

	private static final Duration RENEW_INTERVAL = Duration.ofSeconds(2);

	/** Several leases, so that every lock must have been renewed more than once. */
	private static final Duration HELD_FOR = Duration.ofSeconds(15);

	private static final int ACQUIRING_THREADS = 64;

	private StandaloneLocks locks;

	private RedisCli cli;

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.cli = this.locks.cli();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.locks.close();
	}

	@Test
	void everyOneOfManyHeldLocksIsKeptThroughSeveralLeases() throws Exception {
		CountingObserver observer = new CountingObserver();
		LockTemplate template = this.locks.template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL),
				observer);
		AtomicReferenceArray<LockHandle> handles = new AtomicReferenceArray<>(LOCKS);
		long startedAt = System.nanoTime();
		acquireAll(template, handles);
		long acquiredAt = System.nanoTime();
		System.out.printf("%d locks granted in %d ms%n", LOCKS, TimeUnit.NANOSECONDS.toMillis(acquiredAt - startedAt));
		assertThat(this.locks.diagnostics(template).renewedCount()).as("leases renewed").isEqualTo(LOCKS);
		long evalsBefore = evalCalls();
		long renewalsBefore = renewals(observer);
		long cpuBefore = processCpuNanos();
		await().during(HELD_FOR)
			.atMost(HELD_FOR.plusSeconds(5))
			.pollInterval(Duration.ofSeconds(1))
			.until(() -> notHeld(handles) == 0);
		long heldNanos = System.nanoTime() - acquiredAt;
		long calls = evalCalls() - evalsBefore;
		long cpu = processCpuNanos() - cpuBefore;
		long renewals = renewals(observer) - renewalsBefore;
		int leastRenewed = Integer.MAX_VALUE;
		for (int i = 0; i < LOCKS; i++) {
			leastRenewed = Math.min(leastRenewed, observer.renewals(lockName(i)));
		}
		System.out.printf("%d locks held %d ms: %d renewals/s in %d script calls/s, JVM CPU %.0f%% of one core%n",
				LOCKS, TimeUnit.NANOSECONDS.toMillis(heldNanos), renewals * 1_000_000_000L / heldNanos,
				calls * 1_000_000_000L / heldNanos, 100.0 * cpu / heldNanos);
		assertThat(heldLockKeys()).as("lock keys in Redis").isEqualTo(LOCKS);
		assertThat(leastRenewed).as("renewals of the least renewed lock").isGreaterThanOrEqualTo(2);
		// Renewed many to a script call, not one each.
		assertThat(calls).as("script calls").isLessThan(renewals / 25);
		// Closed while every lock is still held: after the grace, all of them are given
		// back in Redis at once, so that other instances need not wait out their leases.
		long closingAt = System.nanoTime();
		template.shutdown(Duration.ZERO);
		System.out.printf("%d held locks released by the shutdown in %d ms%n", LOCKS,
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closingAt));
		assertThat(heldLockKeys()).as("lock keys left held in Redis after the shutdown").isZero();
		assertThat(notHeld(handles)).as("handles that know their lock was released").isEqualTo(LOCKS);
	}

	private static void acquireAll(LockTemplate template, AtomicReferenceArray<LockHandle> handles) throws Exception {
		ExecutorService executor = LockFixture.executor("acquiring");
		try {
			List<Future<?>> acquiring = new ArrayList<>();
			for (int thread = 0; thread < ACQUIRING_THREADS; thread++) {
				int first = thread;
				acquiring.add(executor.submit(() -> {
					for (int i = first; i < LOCKS; i += ACQUIRING_THREADS) {
						handles.set(i, template.lock(lockName(i)));
					}
				}));
			}
			for (Future<?> future : acquiring) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static long renewals(CountingObserver observer) {
		long renewals = 0;
		for (int i = 0; i < LOCKS; i++) {
			renewals += observer.renewals(lockName(i));
		}
		return renewals;
	}

	private static int notHeld(AtomicReferenceArray<LockHandle> handles) {
		int count = 0;
		for (int i = 0; i < handles.length(); i++) {
			if (!handles.get(i).isHeld()) {
				count++;
			}
		}
		return count;
	}

	private long heldLockKeys() {
		return lockKeyValues().stream().filter((value) -> LockKeyValues.holder(value) != null).count();
	}

	private List<String> lockKeyValues() {
		List<String> values = new ArrayList<>();
		int batch = 1000;
		for (int first = 0; first < LOCKS; first += batch) {
			String[] command = new String[batch + 1];
			command[0] = "MGET";
			for (int i = 0; i < batch; i++) {
				command[i + 1] = "redis-lock:{" + lockName(first + i) + "}";
			}
			for (Object value : (List<?>) this.cli.command(command)) {
				values.add((String) value);
			}
		}
		return values;
	}

	private long evalCalls() {
		return CommandStats.commandCalls(this.cli)
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith("eval"))
			.mapToLong((entry) -> entry.getValue())
			.sum();
	}

	private static long processCpuNanos() {
		return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
	}

	private static String lockName(int i) {
		return "many:" + i;
	}

}
