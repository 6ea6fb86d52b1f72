package io.github.redislock.virtualthreads;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Function;
import java.util.function.IntFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.CriticalSections;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locks taken by virtual threads, thousands at once: each run queues every thread behind
 * a holder of its lock on another node, lets go, and checks that every thread was
 * granted, that no two holders of a lock overlapped (a counter incremented without
 * atomicity stays exact, and the critical sections never intersect), and that no virtual
 * thread blocked while pinned to its carrier ({@link PinnedCarriers}). The waiters park
 * with {@code LockSupport}, which unmounts a virtual thread; a waiter parked inside a
 * monitor or under a native frame would hold one of the few carriers instead.
 */
@RedisTest
class VirtualThreadLockTests {

	private static final int KEYS = 10;

	private static final Duration WAIT_TIME = Duration.ofMinutes(2);

	/**
	 * The callers' first attempts reach each node's one connection all at once; on a
	 * shared 2-core machine their answers may take longer than the fixtures' 2 s.
	 */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);

	/**
	 * Callers of a first, small run on nodes of their own: a virtual thread that loads or
	 * initializes a class blocks pinned while another thread does so, once per class, and
	 * the recorded run is about waiting for locks, not about the JVM loading classes.
	 */
	private static final int WARM_UP_THREADS = 200;

	private static final Function<String, LockRequest> FAIR = (key) -> LockRequest.of(key).fair(true);

	private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

	private StandaloneLocks locks;

	@BeforeEach
	void createFixture(RedisServer server) {
		this.locks = new StandaloneLocks(server);
	}

	@AfterEach
	void closeFixture() throws Exception {
		this.locks.close();
	}

	@Test
	void twentyThousandVirtualThreadsOverTenKeysAreAllGrantedOneAtATimeWithNoCarrierPinned() throws Exception {
		int threads = 20_000;
		CriticalSections sections = new CriticalSections();
		AtomicIntegerArray counters = new AtomicIntegerArray(KEYS);
		Caller increment = (i, node, handle) -> {
			CriticalSections.Section section = sections.enter(handle.key(), node, handle.fencingToken());
			int value = counters.get(i % KEYS);
			Thread.yield();
			counters.set(i % KEYS, value + 1);
			sections.exit(section);
		};
		runQueued("exclusive", WARM_UP_THREADS, LockRequest::of, (i) -> LockRequest.of(key(i)), increment);
		try (PinnedCarriers pinned = PinnedCarriers.record()) {
			Duration took = runQueued("exclusive", threads, LockRequest::of, (i) -> LockRequest.of(key(i)), increment);
			List<String> pinnedEvents = pinned.stop();
			System.out.printf("%,d virtual threads over %d keys: all granted in %,d ms, %d pinned events%n", threads,
					KEYS, took.toMillis(), pinnedEvents.size());
			assertThat(pinnedEvents).as("virtual threads pinned to their carrier").isEmpty();
		}
		for (int k = 0; k < KEYS; k++) {
			int calls = (WARM_UP_THREADS + threads) / KEYS;
			assertThat(counters.get(k)).as("counter of %s", key(k)).isEqualTo(calls);
			assertThat(sections.entries(key(k))).isEqualTo(calls);
			assertThat(sections.maxInside(key(k))).as("holders of %s at once", key(k)).isEqualTo(1);
		}
		assertThat(sections.overlaps(true)).isEmpty();
		assertThat(sections.tokenInversions(true)).isEmpty();
	}

	@Test
	void fairLocksAndReadWriteLocksOnVirtualThreadsPinNoCarrier() throws Exception {
		int threads = 1_000;
		AtomicIntegerArray fairCounters = new AtomicIntegerArray(KEYS);
		Caller fairIncrement = (i, node, handle) -> {
			int value = fairCounters.get(i % KEYS);
			Thread.yield();
			fairCounters.set(i % KEYS, value + 1);
		};
		ReadersAndWriters document = new ReadersAndWriters(KEYS);
		// One caller in five writes.
		IntFunction<LockRequest> readOrWrite = (i) -> (i % 5 == 0) ? LockRequest.write(key(i))
				: LockRequest.read(key(i));
		Caller readOrWriteCall = (i, node, handle) -> document.enter(i % KEYS, i % 5 == 0);
		runQueued("fair", WARM_UP_THREADS, FAIR, (i) -> FAIR.apply(key(i)), fairIncrement);
		runQueued("read/write", WARM_UP_THREADS, LockRequest::write, readOrWrite, readOrWriteCall);
		try (PinnedCarriers pinned = PinnedCarriers.record()) {
			runQueued("fair", threads, FAIR, (i) -> FAIR.apply(key(i)), fairIncrement);
			runQueued("read/write", threads, LockRequest::write, readOrWrite, readOrWriteCall);
			List<String> pinnedEvents = pinned.stop();
			System.out.printf("%,d fair and %,d read/write callers on virtual threads: %d pinned events%n", threads,
					threads, pinnedEvents.size());
			assertThat(pinnedEvents).as("virtual threads pinned to their carrier").isEmpty();
		}
		int calls = WARM_UP_THREADS + threads;
		for (int k = 0; k < KEYS; k++) {
			assertThat(fairCounters.get(k)).as("counter of fair %s", key(k)).isEqualTo(calls / KEYS);
		}
		assertThat(document.violations()).as("readers or writers inside with a writer").isZero();
		assertThat(document.reads()).isEqualTo(calls * 4 / 5);
	}

	/**
	 * The recording catches a virtual thread that blocks while pinned: one that parks in
	 * a class initializer, which pins on every JDK so far, monitors or not.
	 */
	@Test
	void recordingCatchesAPinnedVirtualThread() throws Exception {
		try (PinnedCarriers pinned = PinnedCarriers.record()) {
			Thread.ofVirtual().start(SlowInitialization::touch).join();
			assertThat(pinned.stop()).singleElement().asString().contains(SlowInitialization.class.getName());
		}
	}

	/**
	 * Starts one virtual thread per caller, each waiting for the lock its index names,
	 * spread over two new nodes, while a third holds every key; once all of them wait,
	 * lets go and waits for all of them to be through.
	 * @return how long from letting go until the last caller was through
	 */
	private Duration runQueued(String kind, int threads, Function<String, LockRequest> holding,
			IntFunction<LockRequest> requests, Caller caller) throws Exception {
		LockOptions options = LockOptions.defaults().withWaitTime(WAIT_TIME);
		List<LockTemplate> nodes = List.of(this.locks.template(options, COMMAND_TIMEOUT),
				this.locks.template(options, COMMAND_TIMEOUT));
		LockTemplate holderNode = this.locks.template();
		List<LockHandle> held = new ArrayList<>();
		for (int k = 0; k < KEYS; k++) {
			held.add(holderNode.lock(holding.apply(key(k))));
		}
		AtomicInteger granted = new AtomicInteger();
		long started = System.nanoTime();
		ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
		try {
			for (int i = 0; i < threads; i++) {
				int index = i;
				LockTemplate node = nodes.get(i % nodes.size());
				executor.execute(() -> {
					try (LockHandle handle = node.lock(requests.apply(index))) {
						granted.incrementAndGet();
						caller.run(index, node, handle);
					}
					catch (Throwable ex) {
						this.failures.add(ex);
					}
				});
			}
			await().atMost(Duration.ofSeconds(60)).until(() -> waiters(nodes) + this.failures.size() == threads);
			long released = System.nanoTime();
			held.forEach(LockHandle::close);
			executor.shutdown();
			assertThat(executor.awaitTermination(WAIT_TIME.toSeconds(), TimeUnit.SECONDS)).isTrue();
			Duration took = Duration.ofNanos(System.nanoTime() - released);
			System.out.printf("%,d %s callers: all waiting after %,d ms, all through %,d ms after the release%n",
					threads, kind, TimeUnit.NANOSECONDS.toMillis(released - started), took.toMillis());
			if (!this.failures.isEmpty()) {
				throw new AssertionError(this.failures.size() + " of " + threads + " callers failed, first with",
						this.failures.peek());
			}
			assertThat(granted).hasValue(threads);
			return took;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private int waiters(List<LockTemplate> nodes) {
		return nodes.stream().mapToInt((node) -> this.locks.diagnostics(node).waiterCount()).sum();
	}

	private static String key(int index) {
		return "stock:" + (index % KEYS);
	}

	/** What a caller does while it holds its lock. */
	@FunctionalInterface
	private interface Caller {

		void run(int index, LockTemplate node, LockHandle handle);

	}

	/** A class whose initialization parks its thread. */
	private static final class SlowInitialization {

		static {
			java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}

		static void touch() {
		}

	}

}
