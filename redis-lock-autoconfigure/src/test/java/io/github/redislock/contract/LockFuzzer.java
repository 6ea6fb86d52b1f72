package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;

/**
 * Runs threads that take locks and increment counters in Redis with a non-atomic GET and
 * SET while they hold them: any overlap of two holders of one lock loses an update, so a
 * counter is exact only if the lock excludes. Every critical section is recorded in
 * {@link CriticalSections}, which catches an overlap directly and orders fencing tokens.
 * <p>
 * The run is seeded: each thread draws its choices (which lock, how long to think) from a
 * {@link Random} of its own, derived from one seed printed at the start and named in
 * every failure. Set {@value #SEED_PROPERTY} to replay a seed; thread scheduling still
 * varies, so a replay repeats the choices, not the interleaving.
 */
final class LockFuzzer {

	/** The system property that fixes the seed of a run, to replay a failure. */
	static final String SEED_PROPERTY = "redislock.fuzz.seed";

	private final long seed;

	private final CriticalSections sections = new CriticalSections();

	LockFuzzer() {
		this.seed = Long.getLong(SEED_PROPERTY, System.nanoTime());
		System.out.println("Fuzz seed " + this.seed + replayHint());
	}

	/** The critical sections recorded so far. */
	CriticalSections sections() {
		return this.sections;
	}

	/**
	 * Runs the worker on the given number of threads at once, each with its random of the
	 * seed, and waits for them all.
	 * @throws AssertionError naming the seed, if a thread failed or the run outlasted its
	 * limit
	 */
	void run(int threads, Duration limit, Worker worker) {
		ExecutorService executor = Executors.newFixedThreadPool(threads, CallerThreads.factory("fuzz-"));
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (int thread = 0; thread < threads; thread++) {
				int id = thread;
				Random random = new Random(this.seed + id);
				futures.add(executor.submit(() -> {
					start.await();
					worker.run(id, random);
					return null;
				}));
			}
			start.countDown();
			long deadline = System.nanoTime() + limit.toNanos();
			for (Future<?> future : futures) {
				future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
		}
		catch (Exception ex) {
			throw new AssertionError("Fuzz run failed" + replayHint(), ex);
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Runs a critical section under a lock just granted: records it and increments the
	 * lock's counter with a GET and a SET, thinking for a while in between now and then.
	 * @param node the node that holds the lock, to count hand-overs between nodes
	 */
	void increment(String name, Object node, LockHandle handle, StringRedisTemplate data, Random random) {
		CriticalSections.Section section = this.sections.enter(name, node, handle.fencingToken());
		try {
			String value = data.opsForValue().get(counterKey(name));
			long current = (value != null) ? Long.parseLong(value) : 0;
			// Widen the window between read and write now and then.
			if (random.nextInt(4) == 0) {
				LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(random.nextInt(300)));
			}
			else {
				Thread.yield();
			}
			data.opsForValue().set(counterKey(name), Long.toString(current + 1));
		}
		finally {
			this.sections.exit(section);
		}
	}

	/**
	 * Runs the checks of a run; a failure names the seed.
	 * @throws AssertionError naming the seed, if a check failed
	 */
	void verify(Runnable checks) {
		try {
			checks.run();
		}
		catch (AssertionError ex) {
			throw new AssertionError(ex.getMessage() + replayHint(), ex);
		}
	}

	/** The counter of a lock shares its hash tag, so its slot and its primary. */
	static String counterKey(String name) {
		return "fuzz:{" + name + "}:counter";
	}

	private String replayHint() {
		return " (seed " + this.seed + ": replay with -D" + SEED_PROPERTY + "=" + this.seed + ")";
	}

	/** What each thread of a run does. */
	@FunctionalInterface
	interface Worker {

		void run(int thread, Random random) throws Exception;

	}

}
