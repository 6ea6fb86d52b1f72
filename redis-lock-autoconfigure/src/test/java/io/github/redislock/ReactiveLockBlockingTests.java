package io.github.redislock;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import io.github.redislock.contract.CriticalSections;
import io.github.redislock.contract.CriticalSections.Section;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive path blocks no thread: 10,000 acquisitions of one hot key, subscribed at
 * once from a scheduler of 4 threads, all complete, one at a time, while BlockHound
 * watches every thread that must not block: the scheduler's, the Redis client's event
 * loops, the engine's timer and the engine's background threads, which run the waiters'
 * rounds and complete the grants. (Those threads may also open connections and retry
 * failed releases, which wait for Redis; nothing here makes them.)
 * <p>
 * BlockHound's agent stays in the JVM once installed, and this JVM runs every test class
 * of the module: it watches threads only while {@link #watching} is set, during the test,
 * and only this test's engine's: its background threads are its own executor's
 * ({@value #ENGINE_THREADS}), and its timer is the one started after {@link #setUp} noted
 * the threads alive. Engines other tests left open keep their own threads, which may
 * repair a subscription to a server long stopped, or have entered an idle wait before
 * BlockHound was installed.
 */
class ReactiveLockBlockingTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Queue<BlockingOperationError> blockingCalls = new ConcurrentLinkedQueue<>();

	private static final String ENGINE_THREADS = "blocking-test-engine-";

	private static volatile boolean watching;

	/** The threads alive before this test's engine started, which are not watched. */
	private static volatile Set<Thread> earlier = Set.of();

	private ExecutorService engineThreads;

	private StandaloneLocks locks;

	private ReactiveLockTemplate reactive;

	private LockTemplate blocking;

	private final Scheduler scheduler = Schedulers.newParallel("reactive-hot-key", 4);

	@BeforeAll
	static void installBlockHound() {
		BlockHound.builder()
			.loadIntegrations()
			// Lettuce guards each command's write with a lock held for no longer than the
			// write (no I/O is awaited under it), which threads writing at once contend
			// for: the Redis client's own, on every reactive path that uses it.
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "decrementWriters")
			// The engine's timer queue, and its executor's here (a scheduled pool, as the
			// engine's own), guard each hand-over of work, each arming and each removal
			// of
			// a cancelled timer with a lock held for one heap operation, no I/O.
			.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "offer")
			.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
			// An idle worker of a pool (the engine's timer and housekeeping threads)
			// waits for its next task: it has nothing to do, and holds nobody up.
			.allowBlockingCallsInside("java.util.concurrent.ThreadPoolExecutor", "getTask")
			.nonBlockingThreadPredicate((nonBlocking) -> (thread) -> watching && !isShuttingDownEventLoop()
					&& (nonBlocking.test(thread) || thread.getName().startsWith(ENGINE_THREADS)
							|| (thread.getName().equals("redis-lock-timer") && !earlier.contains(thread))))
			.blockingMethodCallback((method) -> blockingCalls.add(new BlockingOperationError(method)))
			.install();
	}

	/**
	 * Whether the calling thread is the event loop of a Redis client that shuts down,
	 * such as one an earlier test closed, which may wait as it ends.
	 */
	private static boolean isShuttingDownEventLoop() {
		EventExecutor executor = ThreadExecutorMap.currentExecutor();
		return executor != null && executor.isShuttingDown();
	}

	@BeforeEach
	void setUp() throws Exception {
		this.locks = topology.fixture();
		this.locks.flush();
		// 10,000 acquisitions at once put 10,000 first attempts in flight together: on a
		// busy machine the last answers take longer than the fixtures' short timeout.
		earlier = Set.copyOf(Thread.getAllStackTraces().keySet());
		AtomicInteger threads = new AtomicInteger();
		this.engineThreads = Executors.newScheduledThreadPool(4,
				(task) -> new Thread(task, ENGINE_THREADS + threads.incrementAndGet()));
		RedisLockEngine engine = new RedisLockEngine(this.locks.connectionFactory(Duration.ofSeconds(10)),
				LockOptions.defaults(), null, this.engineThreads);
		this.blocking = this.locks.template(engine);
		this.reactive = new ReactiveLockTemplate(engine);
		// Connected and subscribed before BlockHound watches: opening connections blocks.
		// A waiter opens the subscription connection, which the engine's threads share
		// with the rounds.
		CompletableFuture<Integer> waiter;
		try (LockHandle held = this.blocking.lock("hot")) {
			waiter = this.reactive.execute(LockRequest.of("hot").waitTime(Duration.ofSeconds(10)), Mono.just(1))
				.toFuture();
			await().until(
					() -> this.locks.diagnostics(this.blocking).subscriptionStatus() == SubscriptionStatus.CONNECTED);
		}
		waiter.get(10, TimeUnit.SECONDS);
		blockingCalls.clear();
	}

	@AfterEach
	void tearDown() throws Exception {
		watching = false;
		this.scheduler.dispose();
		this.locks.close();
		this.engineThreads.shutdownNow();
	}

	@Test
	void tenThousandConcurrentAcquisitionsOfOneKeyCompleteOneAtATimeWithoutBlockingAThread() {
		CriticalSections sections = new CriticalSections();
		long[] counter = new long[1];
		LockRequest request = LockRequest.of("hot").waitTime(Duration.ofSeconds(60));
		Mono<Long> increment = ReactiveCurrentLock.fencingToken().map((token) -> {
			Section section = sections.enter("hot", Thread.currentThread(), token);
			long next = ++counter[0];
			sections.exit(section);
			return next;
		});
		watching = true;
		List<Long> results = Flux.range(0, 10_000)
			.flatMap((i) -> this.reactive.execute(request, increment).subscribeOn(this.scheduler), 10_000)
			.collectList()
			.doFinally((signal) -> watching = false)
			.block(Duration.ofSeconds(60));
		assertThat(blockingCalls).as(ReactiveLockBlockingTests::describeBlockingCalls).isEmpty();
		assertThat(results).hasSize(10_000).doesNotHaveDuplicates();
		assertThat(counter[0]).isEqualTo(10_000);
		assertThat(sections.maxInside("hot")).isOne();
		assertThat(sections.overlaps(true)).isEmpty();
		assertThat(sections.tokenInversions(true)).isEmpty();
		assertThat(this.blocking.isLocked("hot")).isFalse();
		assertThat(this.locks.diagnostics(this.blocking).waiterCount()).isZero();
	}

	/**
	 * The blocking calls seen, one sample stack for each place that made them, with how
	 * often it did.
	 */
	private static String describeBlockingCalls() {
		Map<String, List<BlockingOperationError>> byPlace = new LinkedHashMap<>();
		for (BlockingOperationError call : blockingCalls) {
			byPlace.computeIfAbsent(place(call), (place) -> new ArrayList<>()).add(call);
		}
		StringWriter text = new StringWriter();
		PrintWriter out = new PrintWriter(text);
		out.println(blockingCalls.size() + " calls that block a thread which must not block:");
		byPlace.forEach((place, calls) -> {
			out.println(calls.size() + " x " + place);
			calls.get(0).printStackTrace(out);
		});
		return text.toString();
	}

	/** The first frame of a blocking call that is neither the JDK's nor BlockHound's. */
	private static String place(BlockingOperationError call) {
		for (StackTraceElement frame : call.getStackTrace()) {
			String type = frame.getClassName();
			if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("reactor.blockhound.")
					&& !type.equals(ReactiveLockBlockingTests.class.getName())) {
				return frame.toString();
			}
		}
		return call.getMessage();
	}

	@Test
	void blockHoundSeesABlockingCallOnAWatchedThread() {
		watching = true;
		Mono.fromRunnable(() -> {
			try {
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}).subscribeOn(this.scheduler).block(Duration.ofSeconds(10));
		watching = false;
		assertThat(blockingCalls).as(ReactiveLockBlockingTests::describeBlockingCalls)
			.singleElement()
			.extracting(Throwable::getMessage)
			.asString()
			// Thread.sleepNanos0 on JDK 21 and later
			.startsWith("Blocking call! java.lang.Thread.sleep");
		blockingCalls.clear();
	}

}
