package io.github.redislock.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Where this JVM's CPU time went over a window, thread by thread: the threads that used
 * the most, what no Java thread accounts for (the JIT compilers, the garbage collector
 * and other VM threads), and how long the JIT compiled.
 */
final class ThreadCpu {

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private final Map<Long, Long> before;

	private final long processBefore;

	private final long compilingBefore = compilingMillis();

	private ThreadCpu() {
		this.before = byThread();
		this.processBefore = CpuTime.process();
	}

	static ThreadCpu start() {
		return new ThreadCpu();
	}

	/**
	 * The busiest threads since the start, each thread pool's threads together: for
	 * example {@code main 310 ms, lettuce-nioEventLoop 95 ms; JIT compiling for 20 ms}.
	 * @param excluded the threads to leave out, such as those measured on their own
	 */
	String busiest(Thread... excluded) {
		long process = CpuTime.process() - this.processBefore;
		Set<Long> excludedIds = Arrays.stream(excluded).map(Thread::getId).collect(Collectors.toSet());
		Map<String, Long> used = new HashMap<>();
		long accounted = 0;
		for (Map.Entry<Long, Long> entry : byThread().entrySet()) {
			long delta = entry.getValue() - this.before.getOrDefault(entry.getKey(), 0L);
			ThreadInfo info = this.threads.getThreadInfo(entry.getKey());
			accounted += delta;
			if (info != null && !excludedIds.contains(entry.getKey())) {
				// Pool threads are numbered: count a pool as one
				used.merge(info.getThreadName().replaceAll("-\\d+(-\\d+)?$", ""), delta, Long::sum);
			}
		}
		used.put("VM threads (JIT, GC)", process - accounted);
		String busiest = used.entrySet()
			.stream()
			.filter((entry) -> entry.getValue() >= 1_000_000)
			.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
			.limit(4)
			.map((entry) -> entry.getKey() + " " + Math.round(entry.getValue() / 1e6) + " ms")
			.collect(Collectors.joining(", "));
		// Compilation time is elapsed, not CPU: on a busy machine it runs ahead of the
		// CPU
		return busiest + "; JIT compiling for " + (compilingMillis() - this.compilingBefore) + " ms";
	}

	/**
	 * CPU time so far of the threads that are not Java threads: the JIT compilers, the
	 * garbage collector and other VM threads (and Java threads that ended).
	 */
	static long vmThreadsNanos() {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long javaThreads = 0;
		for (long id : threads.getAllThreadIds()) {
			javaThreads += Math.max(0, threads.getThreadCpuTime(id));
		}
		return CpuTime.process() - javaThreads;
	}

	/** Time the JIT compilers spent compiling so far, added over its threads. */
	static long compilingMillis() {
		CompilationMXBean compilation = ManagementFactory.getCompilationMXBean();
		return (compilation != null) ? compilation.getTotalCompilationTime() : 0;
	}

	private Map<Long, Long> byThread() {
		Map<Long, Long> cpu = new HashMap<>();
		for (long id : this.threads.getAllThreadIds()) {
			long time = this.threads.getThreadCpuTime(id);
			if (time > 0) {
				cpu.put(id, time);
			}
		}
		return cpu;
	}

}
