package io.github.redislock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import io.github.redislock.annotation.ConcurrentServicesConfiguration.DocumentService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of {@link io.github.redislock.DistributedLock @DistributedLock} methods with
 * {@code mode = READ} and {@code mode = WRITE} on real Redis: read methods of one key run
 * together, a write method runs alone.
 */
@LockedServicesTest
class DistributedLockModeTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@Autowired
	private DocumentService documents;

	@Autowired
	private LockProbe probe;

	private final List<Thread> threads = new CopyOnWriteArrayList<>();

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.probe.flush();
		this.documents.resetViolations();
		this.executor = Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, "lock-mode-tests");
			this.threads.add(thread);
			return thread;
		});
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
	}

	@Test
	void readCallsOnOneKeyRunAtTheSameTime() {
		// Each reader waits inside for the other: with an exclusive lock the second could
		// not enter until the first gave up waiting, so both would report false.
		CountDownLatch bothInside = new CountDownLatch(2);
		List<CompletableFuture<Boolean>> readers = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			readers.add(call(() -> {
				AtomicBoolean met = new AtomicBoolean();
				this.documents.read(1, () -> {
					bothInside.countDown();
					met.set(awaitLatch(bothInside, Duration.ofSeconds(5)));
				});
				return met.get();
			}));
		}
		for (CompletableFuture<Boolean> reader : readers) {
			assertThat(reader).succeedsWithin(TIMEOUT).isEqualTo(true);
		}
		assertThat(this.probe.held()).isEmpty();
	}

	@Test
	void writeCallExcludesReadCallsUntilItReturns() {
		CountDownLatch writerInside = new CountDownLatch(1);
		CountDownLatch releaseWriter = new CountDownLatch(1);
		AtomicBoolean writerFinished = new AtomicBoolean();
		CompletableFuture<Boolean> writer = call(() -> {
			this.documents.write(2, () -> {
				writerInside.countDown();
				awaitLatch(releaseWriter, TIMEOUT);
				writerFinished.set(true);
			});
			return true;
		});
		assertThat(awaitLatch(writerInside, TIMEOUT)).isTrue();
		int threadsBefore = this.threads.size();
		CountDownLatch bothReadersInside = new CountDownLatch(2);
		List<CompletableFuture<String>> readers = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			readers.add(call(() -> {
				AtomicBoolean enteredAfterWriter = new AtomicBoolean();
				AtomicBoolean metOtherReader = new AtomicBoolean();
				this.documents.read(2, () -> {
					enteredAfterWriter.set(writerFinished.get());
					bothReadersInside.countDown();
					metOtherReader.set(awaitLatch(bothReadersInside, Duration.ofSeconds(5)));
				});
				return "entered after writer " + enteredAfterWriter + ", met other reader " + metOtherReader;
			}));
		}
		// Both readers have asked and are blocked waiting for the lock; they stay out for
		// as long as the writer holds it.
		await().atMost(TIMEOUT).until(() -> blockedThreads(threadsBefore) == 2);
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.documents.readersInside() == 0);
		releaseWriter.countDown();
		assertThat(writer).succeedsWithin(TIMEOUT);
		// Released together, the readers shared the lock again.
		for (CompletableFuture<String> reader : readers) {
			assertThat(reader).succeedsWithin(TIMEOUT).isEqualTo("entered after writer true, met other reader true");
		}
		assertThat(this.documents.violations()).isZero();
	}

	@Test
	void readAndWriteCallsNeverOverlapUnderLoad() {
		int readerThreads = 4;
		int writerThreads = 2;
		AtomicInteger maxReaders = new AtomicInteger();
		AtomicInteger writes = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<CompletableFuture<Boolean>> calls = new ArrayList<>();
		for (int i = 0; i < readerThreads; i++) {
			calls.add(call(() -> {
				awaitLatch(start, TIMEOUT);
				for (int j = 0; j < 25; j++) {
					this.documents.read(3, () -> {
						maxReaders.accumulateAndGet(this.documents.readersInside(), Math::max);
						Thread.yield();
					});
				}
				return true;
			}));
		}
		for (int i = 0; i < writerThreads; i++) {
			calls.add(call(() -> {
				awaitLatch(start, TIMEOUT);
				for (int j = 0; j < 15; j++) {
					this.documents.write(3, () -> {
						writes.incrementAndGet();
						Thread.yield();
					});
				}
				return true;
			}));
		}
		start.countDown();
		for (CompletableFuture<Boolean> call : calls) {
			assertThat(call).succeedsWithin(Duration.ofSeconds(40));
		}
		assertThat(writes).hasValue(writerThreads * 15);
		assertThat(this.documents.violations()).isZero();
		assertThat(maxReaders.get()).isPositive();
		assertThat(this.probe.held()).isEmpty();
	}

	private <T> CompletableFuture<T> call(Callable<T> action) {
		CompletableFuture<T> result = new CompletableFuture<>();
		this.executor.execute(() -> {
			try {
				result.complete(action.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		return result;
	}

	/** Threads started since the given count that are parked, as a lock waiter is. */
	private long blockedThreads(int from) {
		return this.threads.subList(from, this.threads.size())
			.stream()
			.filter((thread) -> thread.getState() == Thread.State.WAITING
					|| thread.getState() == Thread.State.TIMED_WAITING)
			.count();
	}

	private static boolean awaitLatch(CountDownLatch latch, Duration timeout) {
		try {
			return latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
