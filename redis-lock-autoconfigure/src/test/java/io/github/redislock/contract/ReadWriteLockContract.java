package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockMode;
import io.github.redislock.LockOperations;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Read/write locks, through {@link LockOperations#readLock} and
 * {@link LockOperations#writeLock}: readers share, a writer is alone, a writer is not
 * starved by readers, and holders that re-enter, downgrade, try to upgrade, are renewed
 * or lose their lock behave as documented on {@link LockMode}. A reader whose JVM dies is
 * shown in {@code KilledHolderTests}.
 */
interface ReadWriteLockContract extends LockContract {

	/** The name of the read/write lock of these tests. */
	String KEY = "doc";

	/**
	 * Where the holders of the read/write lock {@value #KEY} live, with the default
	 * prefix.
	 */
	String HOLDERS_KEY = "redis-lock:{doc}:rw";

	/** A wait far longer than any test should take. */
	Duration TIMEOUT = Duration.ofSeconds(20);

	/**
	 * Time the renewal tests allow on top of a lease, for scheduling on a busy machine.
	 */
	Duration MARGIN = Duration.ofSeconds(2);

	/**
	 * Watchdog lease of the renewal tests: a renewal may come 2 s late (as late as the
	 * command timeout allows) before the lease runs out.
	 */
	Duration LEASE = Duration.ofMillis(2500);

	/** Renewal interval of the renewal tests' watchdog. */
	Duration RENEW_INTERVAL = Duration.ofMillis(500);

	@Test
	default void readersHoldTheLockAtTheSameTime() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		RedisCli cli = locks().cli(KEY);
		int readers = 6;
		// Each reader stays inside until all are: one reader at a time could not get
		// there.
		CountDownLatch allInside = new CountDownLatch(readers);
		List<Future<Boolean>> results = new ArrayList<>();
		for (int i = 0; i < readers; i++) {
			LockTemplate template = (i % 2 == 0) ? node : otherNode;
			results.add(executor().submit(() -> {
				try (LockHandle handle = template.lock(LockRequest.read(KEY).waitTime(TIMEOUT))) {
					allInside.countDown();
					return allInside.await(10, TimeUnit.SECONDS) && handle.isHeld();
				}
			}));
		}
		for (Future<Boolean> result : results) {
			assertThat(result.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(cli.command("EXISTS", HOLDERS_KEY)).isEqualTo(0L);
	}

	@Test
	default void writerExcludesReadersAndOtherWritersAcrossNodes() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		int readersPerNode = 2;
		int readsEach = 40;
		int writersPerNode = 1;
		int writesEach = 25;
		CriticalSections sections = new CriticalSections();
		// Incremented without atomicity: only writers that exclude each other keep it
		// exact.
		AtomicInteger unsafeCount = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (LockTemplate template : List.of(node, otherNode)) {
			for (int i = 0; i < readersPerNode; i++) {
				workers.add(executor().submit(() -> {
					start.await();
					for (int j = 0; j < readsEach; j++) {
						try (LockHandle handle = template.lock(LockRequest.read(KEY).waitTime(TIMEOUT))) {
							CriticalSections.Section section = sections.enterShared(KEY, template);
							// Widens the window in which other readers can join.
							Thread.sleep(1);
							sections.exit(section);
						}
					}
					return null;
				}));
			}
			for (int i = 0; i < writersPerNode; i++) {
				workers.add(executor().submit(() -> {
					start.await();
					for (int j = 0; j < writesEach; j++) {
						try (LockHandle handle = template.lock(LockRequest.write(KEY).waitTime(TIMEOUT))) {
							CriticalSections.Section section = sections.enter(KEY, template, handle.fencingToken());
							int value = unsafeCount.get();
							Thread.yield();
							unsafeCount.set(value + 1);
							sections.exit(section);
						}
					}
					return null;
				}));
			}
		}
		start.countDown();
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		assertThat(sections.overlaps(true)).as("a writer overlapping a reader or another writer").isEmpty();
		assertThat(unsafeCount).hasValue(2 * writersPerNode * writesEach);
		// Readers did share the lock in this run, so the writers excluded a real crowd.
		assertThat(sections.maxInside(KEY)).isGreaterThanOrEqualTo(2);
	}

	@Test
	default void writerIsNotStarvedBySteadyReadLoad() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		// A starved writer would give up after its wait, and lock() would throw.
		Duration writerWait = Duration.ofSeconds(10);
		AtomicBoolean churning = new AtomicBoolean(true);
		AtomicLong reads = new AtomicLong();
		AtomicInteger readersInside = new AtomicInteger();
		List<Future<?>> readers = new ArrayList<>();
		// Six readers that each come back at once and hold for random times, so that they
		// do not fall into step: some reader holds the lock nearly all the time, and a
		// writer that waited for a moment without readers would starve.
		for (int i = 0; i < 6; i++) {
			LockTemplate template = (i % 2 == 0) ? node : otherNode;
			readers.add(executor().submit(() -> {
				while (churning.get()) {
					try (LockHandle handle = template.lock(LockRequest.read(KEY).waitTime(TIMEOUT))) {
						readersInside.incrementAndGet();
						reads.incrementAndGet();
						Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60));
						readersInside.decrementAndGet();
					}
				}
				return null;
			}));
		}
		AtomicInteger writes = new AtomicInteger();
		try {
			for (int round = 0; round < 3; round++) {
				// Let the readers churn between writers: each of the six comes back
				// several
				// times.
				long readsBefore = reads.get();
				await().atMost(TIMEOUT).until(() -> reads.get() > readsBefore + 50);
				LockTemplate writer = (round % 2 == 0) ? node : otherNode;
				try (LockHandle handle = writer.lock(LockRequest.write(KEY).waitTime(writerWait))) {
					assertThat(readersInside).hasValue(0);
					writes.incrementAndGet();
				}
			}
			// The readers go on after the writers: the load was steady throughout.
			long readsAfterWriters = reads.get();
			await().atMost(TIMEOUT).until(() -> reads.get() > readsAfterWriters + 20);
		}
		finally {
			churning.set(false);
		}
		for (Future<?> reader : readers) {
			// A reader that timed out or failed throws here.
			reader.get(30, TimeUnit.SECONDS);
		}
		assertThat(writes).hasValue(3);
	}

	@Test
	default void readLockIsReentrantForItsThread() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		try (LockHandle outer = node.readLock(KEY)) {
			try (LockHandle inner = node.lock(LockRequest.read(KEY).waitTime(Duration.ZERO))) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(outer.isHeld()).isTrue();
			assertThat(tryAndRelease(otherNode, LockRequest.write(KEY))).isFalse();
		}
		assertThat(tryAndRelease(otherNode, LockRequest.write(KEY))).isTrue();
	}

	@Test
	default void writeLockIsReentrantForItsThreadOnly() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		try (LockHandle outer = node.writeLock(KEY)) {
			try (LockHandle inner = node.lock(LockRequest.write(KEY).waitTime(Duration.ZERO))) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(outer.isHeld()).isTrue();
			// Another thread of the same node is another owner.
			assertThat(executor().submit(() -> tryAndRelease(node, LockRequest.write(KEY))).get(10, TimeUnit.SECONDS))
				.isFalse();
			assertThat(tryAndRelease(otherNode, LockRequest.read(KEY))).isFalse();
		}
		assertThat(tryAndRelease(otherNode, LockRequest.read(KEY))).isTrue();
	}

	@Test
	default void writerMayDowngradeToReadLock() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		RedisCli cli = locks().cli(KEY);
		LockHandle write = node.writeLock(KEY);
		LockHandle read;
		try {
			read = node.lock(LockRequest.read(KEY).waitTime(Duration.ZERO));
			assertThat(tryAndRelease(otherNode, LockRequest.read(KEY))).isFalse();
		}
		finally {
			write.close();
		}
		try {
			assertThat(read.isHeld()).isTrue();
			assertThat(tryAndRelease(otherNode, LockRequest.write(KEY))).isFalse();
			// Now a plain read lock: other readers may share it.
			assertThat(tryAndRelease(otherNode, LockRequest.read(KEY))).isTrue();
			Future<Long> writer = executor().submit(() -> {
				try (LockHandle handle = otherNode.lock(LockRequest.write(KEY).waitTime(TIMEOUT))) {
					return System.nanoTime();
				}
			});
			await().atMost(TIMEOUT).until(() -> cli.command("EXISTS", HOLDERS_KEY + ":writer").equals(1L));
			assertThat(writer).isNotDone();
			long released = System.nanoTime();
			read.close();
			assertThat(Duration.ofNanos(writer.get(10, TimeUnit.SECONDS) - released)).isLessThan(SLACK);
		}
		finally {
			read.close();
		}
	}

	@Test
	default void readerCannotUpgradeAndIsToldAtOnce() {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		try (LockHandle read = node.readLock(KEY)) {
			long asked = System.nanoTime();
			assertThatIllegalStateException()
				.isThrownBy(() -> node.lock(LockRequest.write(KEY).waitTime(Duration.ofSeconds(10))))
				.withMessageContaining("a reader cannot upgrade");
			assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(SLACK);
			assertThat(read.isHeld()).isTrue();
			// The refused upgrade left no waiting writer behind to keep readers out.
			assertThat(tryAndRelease(otherNode, LockRequest.read(KEY))).isTrue();
		}
		assertThat(tryAndRelease(node, LockRequest.write(KEY))).isTrue();
	}

	@Test
	default void watchdogKeepsReadLockPastItsLease() {
		LockTemplate otherNode = locks().template();
		LockTemplate renewed = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		try (LockHandle read = renewed.readLock(KEY)) {
			// Until two renewals past the first lease, the read lock stays held and keeps
			// the writer out at every check.
			Duration past = LEASE.plus(RENEW_INTERVAL.multipliedBy(2));
			await().during(past)
				.atMost(past.plus(MARGIN))
				.until(() -> read.isHeld() && !tryAndRelease(otherNode, LockRequest.write(KEY)));
		}
		assertThat(tryAndRelease(otherNode, LockRequest.write(KEY))).isTrue();
	}

	@Test
	default void readerWhoseRedisStateWasDeletedFindsTheLockLost() {
		RedisCli cli = locks().cli(KEY);
		LockTemplate renewed = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		LockHandle read = renewed.readLock(KEY);
		assertThat(cli.command("DEL", HOLDERS_KEY)).isEqualTo(1L);
		await().atMost(LEASE.plus(MARGIN)).until(() -> !read.isHeld());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(read::close);
	}

	@Test
	default void waitingWriterIsWokenWhenTheLastReaderReleases() throws Exception {
		LockTemplate node = locks().template();
		LockTemplate otherNode = locks().template();
		RedisCli cli = locks().cli(KEY);
		// Leases of 30 s: a writer that were not woken would wait for them to end.
		LockHandle first = node.readLock(KEY);
		LockHandle second = otherNode.readLock(KEY);
		LockTemplate writerNode = locks().template();
		Future<Long> writer = executor().submit(() -> {
			try (LockHandle handle = writerNode.lock(LockRequest.write(KEY).waitTime(TIMEOUT))) {
				return System.nanoTime();
			}
		});
		try {
			await().atMost(TIMEOUT).until(() -> cli.command("EXISTS", HOLDERS_KEY + ":writer").equals(1L));
			first.close();
			// One reader left: the writer still waits.
			await().during(Duration.ofMillis(300)).atMost(SLACK).until(() -> !writer.isDone());
			long released = System.nanoTime();
			second.close();
			assertThat(Duration.ofNanos(writer.get(10, TimeUnit.SECONDS) - released)).isLessThan(SLACK);
		}
		finally {
			first.close();
			second.close();
		}
	}

	/** Whether the lock could be taken at once; released again if so. */
	private static boolean tryAndRelease(LockTemplate template, LockRequest request) {
		Optional<LockHandle> handle = template.tryLock(request.waitTime(Duration.ZERO));
		handle.ifPresent(LockHandle::close);
		return handle.isPresent();
	}

}
