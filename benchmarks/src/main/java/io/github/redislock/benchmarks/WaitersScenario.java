package io.github.redislock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;

/**
 * Many threads wait on a key that a {@link LockHolder} in another JVM holds: what does
 * waiting cost (CPU of this JVM, Redis commands), and how soon after the release are the
 * waiters granted, one after the other?
 */
final class WaitersScenario {

	static final String KEY = "contended";

	/** How long every waiter must have been parked before the measured window opens. */
	private static final Duration SETTLED = Duration.ofMillis(500);

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private WaitersScenario() {
	}

	static Figures run(ScenarioContext context) throws Exception {
		BenchmarkSettings settings = context.settings();
		Path directory = Files.createTempDirectory("waiters");
		Path releaseFile = directory.resolve("release");
		List<String> arguments = new ArrayList<>(List.of(releaseFile.toString()));
		arguments.addAll(context.toArguments());
		try (RedisCli cli = context.cli();
				LockClient client = context.openClient();
				JavaProcess holder = JavaProcess.start(LockHolder.class, arguments.toArray(String[]::new))) {
			warmUp(client, settings.warmup(), "waiters");
			holder.awaitOutput(LockHolder.HELD, TIMEOUT);
			long[] grantedAt = new long[settings.waiters()];
			AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
			Thread[] waiters = new Thread[settings.waiters()];
			for (int i = 0; i < waiters.length; i++) {
				int index = i;
				waiters[i] = new Thread(() -> {
					try {
						LockClient.Release release = client.acquire(KEY);
						grantedAt[index] = LockHolder.epochMicros();
						release.release();
					}
					catch (Throwable ex) {
						failure.compareAndSet(null, ex);
					}
				}, "waiter-" + i);
				waiters[i].start();
			}
			awaitParked(waiters);
			// The warm-up left the compilers busy: their CPU is not the waiters'
			Warmup.awaitQuietCompilers(TIMEOUT);
			ThreadMXBean threads = ManagementFactory.getThreadMXBean();
			ThreadCpu threadCpu = ThreadCpu.start();
			long waitersCpu = -cpuTime(threads, waiters);
			long processCpu = -CpuTime.process();
			RedisActivity redis = new RedisActivity(cli);
			redis.start();
			long windowStart = System.nanoTime();
			Thread.sleep(settings.waitWindow().toMillis());
			redis.stop();
			long window = System.nanoTime() - windowStart;
			processCpu += CpuTime.process();
			waitersCpu += cpuTime(threads, waiters);
			String busiest = threadCpu.busiest(waiters);
			long grantedEarly = Arrays.stream(grantedAt).filter((time) -> time != 0).count();
			Files.createFile(releaseFile);
			holder.awaitOutput(LockHolder.RELEASED, TIMEOUT);
			long releasedAt = releasedAt(holder.output());
			for (Thread waiter : waiters) {
				waiter.join(TIMEOUT.toMillis());
			}
			if (failure.get() != null) {
				throw new IllegalStateException("A waiter failed", failure.get());
			}
			Figures figures = new Figures().put("waiters", waiters.length)
				.put("grantedWhileHeld", grantedEarly)
				.put("windowSeconds", window / 1e9)
				.put("waitersCpuMillis", waitersCpu / 1e6)
				.put("processCpuMillis", processCpu / 1e6)
				.put("busiestThreads", busiest)
				.put("firstGrantMicros", Arrays.stream(grantedAt).min().getAsLong() - releasedAt)
				.put("lastGrantMicros", Arrays.stream(grantedAt).max().getAsLong() - releasedAt);
			redis.commands().writeTo(figures);
			return figures;
		}
		finally {
			Files.deleteIfExists(releaseFile);
			Files.deleteIfExists(directory);
		}
	}

	/**
	 * Take and release distinct keys for a while, so that the first grant after the
	 * release does not run cold code. Nobody waits, so no subscription is left to linger
	 * into the measured window.
	 */
	static void warmUp(LockClient client, Duration duration, String name) {
		long end = System.nanoTime() + duration.toNanos();
		for (int i = 0; System.nanoTime() - end < 0; i++) {
			client.acquire("waiters-warmup:" + name + ":" + i).release();
		}
	}

	/**
	 * Wait until every waiter has made its first attempts and sleeps, so that the window
	 * measures waiting, not getting there.
	 */
	private static void awaitParked(Thread[] waiters) throws InterruptedException {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		long parkedSince = System.nanoTime();
		while (System.nanoTime() - parkedSince < SETTLED.toNanos()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The waiters did not settle into waiting within " + TIMEOUT);
			}
			if (!Arrays.stream(waiters).allMatch(WaitersScenario::isParked)) {
				parkedSince = System.nanoTime();
			}
			Thread.sleep(10);
		}
	}

	private static boolean isParked(Thread thread) {
		Thread.State state = thread.getState();
		return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
	}

	private static long cpuTime(ThreadMXBean threads, Thread[] waiters) {
		long sum = 0;
		for (Thread waiter : waiters) {
			sum += Math.max(0, threads.getThreadCpuTime(waiter.getId()));
		}
		return sum;
	}

	private static long releasedAt(String output) {
		int start = output.indexOf(LockHolder.RELEASED) + LockHolder.RELEASED.length();
		return Long.parseLong(output.substring(start, output.indexOf(' ', start)));
	}

}
