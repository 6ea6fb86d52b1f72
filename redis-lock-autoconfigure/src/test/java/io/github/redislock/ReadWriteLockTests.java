package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Read/write locks on a real Redis, through {@link LockOperations#readLock} and
 * {@link LockOperations#writeLock}: readers share, a writer is alone, a writer is not
 * starved by readers, and holders that die, re-enter, downgrade, try to upgrade, are
 * renewed or lose their lock behave as documented on {@link LockMode}.
 */
@RedisTest
class ReadWriteLockTests {

	private static final String KEY = "doc";

	/**
	 * Where the holders of the read/write lock {@value #KEY} live, with the default
	 * prefix.
	 */
	private static final String HOLDERS_KEY = "redis-lock:{doc}:rw";

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	/**
	 * Time allowed on top of a computed bound, for scheduling on a busy machine; far
	 * below the waits and leases that the bounds tell apart.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	/**
	 * Watchdog lease of the renewal tests: a renewal may come 2 s late (as late as the
	 * command timeout allows) before the lease runs out.
	 */
	private static final Duration LEASE = Duration.ofMillis(2500);

	private static final Duration RENEW_INTERVAL = Duration.ofMillis(500);

	private static final Pattern TOKEN = Pattern.compile("TOKEN (\\d+)");

	private RedisServer server;

	private StandaloneLocks locks;

	private LockTemplate node;

	private LockTemplate otherNode;

	private RedisCli cli;

	private ExecutorService executor;

	private JavaProcess child;

	@BeforeEach
	void setUp(RedisServer server) {
		this.server = server;
		this.locks = new StandaloneLocks(server);
		this.node = this.locks.template();
		this.otherNode = this.locks.template();
		this.cli = this.locks.cli();
		this.executor = LockFixture.executor("read-write-lock-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		if (this.child != null) {
			this.child.close();
		}
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void readersHoldTheLockAtTheSameTime() throws Exception {
		int readers = 6;
		// Each reader stays inside until all are: one reader at a time could not get
		// there.
		CountDownLatch allInside = new CountDownLatch(readers);
		List<Future<Boolean>> results = new ArrayList<>();
		for (int i = 0; i < readers; i++) {
			LockTemplate template = (i % 2 == 0) ? this.node : this.otherNode;
			results.add(this.executor.submit(() -> {
				try (LockHandle handle = template.lock(LockRequest.read(KEY).waitTime(TIMEOUT))) {
					allInside.countDown();
					return allInside.await(10, TimeUnit.SECONDS) && handle.isHeld();
				}
			}));
		}
		for (Future<Boolean> result : results) {
			assertThat(result.get(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(this.cli.command("EXISTS", HOLDERS_KEY)).isEqualTo(0L);
	}

	@Test
	void writerExcludesReadersAndOtherWritersAcrossNodes() throws Exception {
		int readersPerNode = 2;
		int readsEach = 40;
		int writersPerNode = 1;
		int writesEach = 25;
		AtomicInteger readersInside = new AtomicInteger();
		AtomicInteger writersInside = new AtomicInteger();
		AtomicInteger maxReadersInside = new AtomicInteger();
		List<String> violations = new CopyOnWriteArrayList<>();
		// Incremented without atomicity: only writers that exclude each other keep it
		// exact.
		AtomicInteger unsafeCount = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (LockTemplate template : List.of(this.node, this.otherNode)) {
			for (int i = 0; i < readersPerNode; i++) {
				workers.add(this.executor.submit(() -> {
					start.await();
					for (int j = 0; j < readsEach; j++) {
						try (LockHandle handle = template.lock(LockRequest.read(KEY).waitTime(TIMEOUT))) {
							maxReadersInside.accumulateAndGet(readersInside.incrementAndGet(), Math::max);
							if (writersInside.get() != 0) {
								violations.add("a reader found a writer inside");
							}
							// Widens the window in which other readers can join.
							Thread.sleep(1);
							readersInside.decrementAndGet();
						}
					}
					return null;
				}));
			}
			for (int i = 0; i < writersPerNode; i++) {
				workers.add(this.executor.submit(() -> {
					start.await();
					for (int j = 0; j < writesEach; j++) {
						try (LockHandle handle = template.lock(LockRequest.write(KEY).waitTime(TIMEOUT))) {
							if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
								violations.add("a writer found " + (writersInside.get() - 1) + " writers and "
										+ readersInside.get() + " readers inside");
							}
							int value = unsafeCount.get();
							Thread.yield();
							unsafeCount.set(value + 1);
							if (readersInside.get() != 0) {
								violations.add("a reader came in while a writer was inside");
							}
							writersInside.decrementAndGet();
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
		assertThat(violations).isEmpty();
		assertThat(unsafeCount).hasValue(2 * writersPerNode * writesEach);
		// Readers did share the lock in this run, so the writers excluded a real crowd.
		assertThat(maxReadersInside.get()).isGreaterThanOrEqualTo(2);
	}

	@Test
	void writerIsNotStarvedBySteadyReadLoad() throws Exception {
		Duration writerWait = Duration.ofSeconds(10);
		// Promptly, though a starved writer would only give up after its 10 s wait.
		Duration writerBound = Duration.ofSeconds(3);
		AtomicBoolean churning = new AtomicBoolean(true);
		AtomicLong reads = new AtomicLong();
		AtomicInteger readersInside = new AtomicInteger();
		List<Future<?>> readers = new ArrayList<>();
		// Six readers that each come back at once and hold for random times, so that they
		// do not fall into step: some reader holds the lock nearly all the time, and a
		// writer that waited for a moment without readers would starve.
		for (int i = 0; i < 6; i++) {
			LockTemplate template = (i % 2 == 0) ? this.node : this.otherNode;
			readers.add(this.executor.submit(() -> {
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
		List<Duration> writerWaits = new ArrayList<>();
		try {
			for (int round = 0; round < 3; round++) {
				// Let the readers churn between writers: each of the six comes back
				// several
				// times.
				long readsBefore = reads.get();
				await().atMost(TIMEOUT).until(() -> reads.get() > readsBefore + 50);
				LockTemplate writer = (round % 2 == 0) ? this.node : this.otherNode;
				long asked = System.nanoTime();
				try (LockHandle handle = writer.lock(LockRequest.write(KEY).waitTime(writerWait))) {
					writerWaits.add(Duration.ofNanos(System.nanoTime() - asked));
					assertThat(readersInside).hasValue(0);
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
		assertThat(writerWaits).hasSize(3).allSatisfy((wait) -> assertThat(wait).isLessThan(writerBound));
	}

	@Test
	void killedReaderJvmIsSucceededByWriterAfterItsLease() {
		Duration lease = Duration.ofSeconds(2);
		this.child = JavaProcess.start(HoldingNode.class, this.server.host(), Integer.toString(this.server.port()), KEY,
				Long.toString(lease.toMillis()), "500", LockMode.READ.name());
		this.child.awaitOutput("HELD", Duration.ofSeconds(30));
		long readerToken = token(this.child.output());
		assertThat(tryAndRelease(this.node, LockRequest.write(KEY))).isFalse();
		long beforeKill = System.nanoTime();
		long leaseLeft = this.cli.pttl(HOLDERS_KEY);
		this.child.kill();
		try (LockHandle handle = this.node.lock(LockRequest.write(KEY).waitTime(Duration.ofSeconds(10)))) {
			Duration killToGrant = Duration.ofNanos(System.nanoTime() - beforeKill);
			assertThat(killToGrant).isLessThanOrEqualTo(lease.plus(MARGIN));
			// Not before the dead reader's lease ran out in Redis.
			assertThat(killToGrant).isGreaterThanOrEqualTo(Duration.ofMillis(leaseLeft - 50));
			assertThat(handle.fencingToken()).isGreaterThan(readerToken);
		}
	}

	@Test
	void readLockIsReentrantForItsThread() throws Exception {
		try (LockHandle outer = this.node.readLock(KEY)) {
			try (LockHandle inner = this.node.lock(LockRequest.read(KEY).waitTime(Duration.ZERO))) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(outer.isHeld()).isTrue();
			assertThat(tryAndRelease(this.otherNode, LockRequest.write(KEY))).isFalse();
		}
		assertThat(tryAndRelease(this.otherNode, LockRequest.write(KEY))).isTrue();
	}

	@Test
	void writeLockIsReentrantForItsThreadOnly() throws Exception {
		try (LockHandle outer = this.node.writeLock(KEY)) {
			try (LockHandle inner = this.node.lock(LockRequest.write(KEY).waitTime(Duration.ZERO))) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(outer.isHeld()).isTrue();
			// Another thread of the same node is another owner.
			assertThat(onOtherThread(() -> tryAndRelease(this.node, LockRequest.write(KEY)))).isFalse();
			assertThat(tryAndRelease(this.otherNode, LockRequest.read(KEY))).isFalse();
		}
		assertThat(tryAndRelease(this.otherNode, LockRequest.read(KEY))).isTrue();
	}

	@Test
	void writerMayDowngradeToReadLock() throws Exception {
		LockHandle write = this.node.writeLock(KEY);
		LockHandle read;
		try {
			read = this.node.lock(LockRequest.read(KEY).waitTime(Duration.ZERO));
			assertThat(tryAndRelease(this.otherNode, LockRequest.read(KEY))).isFalse();
		}
		finally {
			write.close();
		}
		try {
			assertThat(read.isHeld()).isTrue();
			assertThat(tryAndRelease(this.otherNode, LockRequest.write(KEY))).isFalse();
			// Now a plain read lock: other readers may share it.
			assertThat(tryAndRelease(this.otherNode, LockRequest.read(KEY))).isTrue();
			Future<Long> writer = this.executor.submit(() -> {
				try (LockHandle handle = this.otherNode.lock(LockRequest.write(KEY).waitTime(TIMEOUT))) {
					return System.nanoTime();
				}
			});
			await().atMost(TIMEOUT).until(() -> this.cli.command("EXISTS", HOLDERS_KEY + ":writer").equals(1L));
			assertThat(writer).isNotDone();
			long released = System.nanoTime();
			read.close();
			assertThat(Duration.ofNanos(writer.get(10, TimeUnit.SECONDS) - released)).isLessThan(MARGIN);
		}
		finally {
			read.close();
		}
	}

	@Test
	void readerCannotUpgradeAndIsToldAtOnce() {
		try (LockHandle read = this.node.readLock(KEY)) {
			long asked = System.nanoTime();
			assertThatIllegalStateException()
				.isThrownBy(() -> this.node.lock(LockRequest.write(KEY).waitTime(Duration.ofSeconds(10))))
				.withMessageContaining("a reader cannot upgrade");
			assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(MARGIN);
			assertThat(read.isHeld()).isTrue();
			// The refused upgrade left no waiting writer behind to keep readers out.
			assertThat(tryAndRelease(this.otherNode, LockRequest.read(KEY))).isTrue();
		}
		assertThat(tryAndRelease(this.node, LockRequest.write(KEY))).isTrue();
	}

	@Test
	void watchdogKeepsReadLockPastItsLease() {
		LockTemplate renewed = this.locks.template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		try (LockHandle read = renewed.readLock(KEY)) {
			// Until two renewals past the first lease, the read lock stays held and keeps
			// the writer out at every check.
			Duration past = LEASE.plus(RENEW_INTERVAL.multipliedBy(2));
			await().during(past)
				.atMost(past.plus(MARGIN))
				.until(() -> read.isHeld() && !tryAndRelease(this.otherNode, LockRequest.write(KEY)));
		}
		assertThat(tryAndRelease(this.otherNode, LockRequest.write(KEY))).isTrue();
	}

	@Test
	void readerWhoseRedisStateWasDeletedFindsTheLockLost() {
		LockTemplate renewed = this.locks.template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		LockHandle read = renewed.readLock(KEY);
		assertThat(this.cli.command("DEL", HOLDERS_KEY)).isEqualTo(1L);
		await().atMost(LEASE.plus(MARGIN)).until(() -> !read.isHeld());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(read::close);
	}

	@Test
	void waitingWriterIsWokenWhenTheLastReaderReleases() throws Exception {
		// Leases of 30 s: a writer that were not woken would wait for them to end.
		LockHandle first = this.node.readLock(KEY);
		LockHandle second = this.otherNode.readLock(KEY);
		LockTemplate writerNode = this.locks.template();
		Future<Long> writer = this.executor.submit(() -> {
			try (LockHandle handle = writerNode.lock(LockRequest.write(KEY).waitTime(TIMEOUT))) {
				return System.nanoTime();
			}
		});
		try {
			await().atMost(TIMEOUT).until(() -> this.cli.command("EXISTS", HOLDERS_KEY + ":writer").equals(1L));
			first.close();
			// One reader left: the writer still waits.
			await().during(Duration.ofMillis(300)).atMost(MARGIN).until(() -> !writer.isDone());
			long released = System.nanoTime();
			second.close();
			assertThat(Duration.ofNanos(writer.get(10, TimeUnit.SECONDS) - released)).isLessThan(MARGIN);
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

	private <T> T onOtherThread(Callable<T> action) throws Exception {
		return this.executor.submit(action).get(10, TimeUnit.SECONDS);
	}

	private static long token(String output) {
		Matcher matcher = TOKEN.matcher(output);
		assertThat(matcher.find()).as("token in %s", output).isTrue();
		return Long.parseLong(matcher.group(1));
	}

}
