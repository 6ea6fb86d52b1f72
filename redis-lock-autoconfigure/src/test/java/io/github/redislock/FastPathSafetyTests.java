package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * The fast path that passes a lock between the threads of one JVM without Redis stays
 * safe: its fencing tokens never run ahead of what Redis could grant, a grant that Redis
 * lost is not passed on as if held, a waiter that cannot be handed the lock is not
 * starved by the threads that pass it, a release that finds its lock lost wakes the
 * waiters of its JVM, a release given back in the background keeps the last token as the
 * fence, and locks of different kinds never share a hold.
 */
class FastPathSafetyTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration LONG_WAIT = Duration.ofSeconds(20);

	private RedisServer server;

	private TwoNodes nodes;

	/**
	 * A proxy in front of the server, for a test that needs one: closed after the nodes.
	 */
	private @Nullable FaultProxy proxy;

	@BeforeEach
	void setUp() {
		this.server = topology.servers();
		StandaloneLocks locks = topology.fixture();
		locks.flush();
		this.nodes = new TwoNodes(locks, "fast-path-safety-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		if (this.proxy != null) {
			this.proxy.pass();
		}
		this.nodes.close();
		if (this.proxy != null) {
			this.proxy.close();
		}
	}

	/**
	 * A grant's token is the server's clock in microseconds, and each hand-over adds one:
	 * threads passing the lock faster than one hand-over a microsecond would hand out
	 * tokens that Redis will grant again, to another JVM, once the lock's key is gone.
	 */
	@Test
	void handOverTokensNeverRunAheadOfTheServerClock() throws Exception {
		// A second on another lock first, so that the lock path runs compiled on the one
		// measured
		handOverAsFastAsPossible("warm", Duration.ofSeconds(1));
		long maxToken = handOverAsFastAsPossible("hot", Duration.ofSeconds(3));
		long serverMicros = serverTimeMicros();
		assertThat(maxToken).as("greatest token handed out, against the server's TIME in microseconds")
			.isLessThanOrEqualTo(serverMicros);
		this.nodes.cli().command("DEL", "redis-lock:{hot}");
		try (LockHandle other = this.nodes.otherNode().lock("hot")) {
			assertThat(other.fencingToken()).as("token granted to another JVM once the key was gone")
				.isGreaterThan(maxToken);
		}
	}

	/**
	 * Threads passing the lock with nothing done under it, for the given time.
	 * @return the greatest token handed out
	 */
	private long handOverAsFastAsPossible(String name, Duration duration) throws Exception {
		LockRequest request = LockRequest.of(name).waitTime(LONG_WAIT);
		long end = System.nanoTime() + duration.toNanos();
		List<CompletableFuture<Long>> loops = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			loops.add(CompletableFuture.supplyAsync(() -> {
				long max = 0;
				while (System.nanoTime() - end < 0) {
					try (LockHandle handle = this.nodes.node().lock(request)) {
						max = Math.max(max, handle.fencingToken());
					}
				}
				return max;
			}, this.nodes.executor()));
		}
		long maxToken = 0;
		for (CompletableFuture<Long> loop : loops) {
			maxToken = Math.max(maxToken, loop.get(duration.toSeconds() + 30, TimeUnit.SECONDS));
		}
		return maxToken;
	}

	/**
	 * Redis lost the key of a lock held here while a thread of this JVM waits for it, and
	 * another JVM was granted it: the holder's release must not pass the lock on to the
	 * waiter as if it were still held.
	 */
	@Test
	void lockLostInRedisIsNotHandedToALocalWaiterWhileAnotherJvmHoldsIt() throws Exception {
		LockHandle first = this.nodes.node().lock("k");
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> this.nodes.node().lock(LockRequest.of("k").waitTime(LONG_WAIT)), this.nodes.executor());
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.nodes.diagnostics(this.nodes.node()).sleepingWaiterCount() == 1);
		this.nodes.cli().command("DEL", "redis-lock:{k}");
		LockHandle other = this.nodes.otherNode().tryLock("k", Duration.ZERO).orElseThrow();
		try {
			first.close();
		}
		catch (LockLostException ex) {
			// What it should say; the waiter is what this test is about.
		}
		LockHandle handed = null;
		try {
			handed = waiter.get(2, TimeUnit.SECONDS);
		}
		catch (TimeoutException ex) {
			// Not admitted while the other JVM holds the lock
		}
		if (handed != null) {
			LockHandle held = handed;
			try {
				assertThat(held.isHeld())
					.as("the waiter's hold of 'k', handed over while another JVM holds it (token %d)",
							other.fencingToken())
					.isFalse();
				assertThatExceptionOfType(LockLostException.class).isThrownBy(held::close);
			}
			finally {
				closeQuietly(held);
				other.close();
			}
			return;
		}
		long otherToken = other.fencingToken();
		other.close();
		try (LockHandle next = waiter.get(5, TimeUnit.SECONDS)) {
			assertThat(next.fencingToken()).isGreaterThan(otherToken);
		}
	}

	/**
	 * Threads pass a lock among themselves when Redis loses its key and another JVM takes
	 * it: every critical section admitted after the loss that overlapped the other JVM's
	 * must be told so at its release.
	 */
	@Test
	void holdsAdmittedAfterRedisLostTheLockAreToldSoWhenTheyOverlapAnotherJvm() throws Exception {
		List<String> overlaps = new ArrayList<>();
		for (int round = 0; round < 5 && overlaps.isEmpty(); round++) {
			overlaps.addAll(holdsOverlappingAnotherJvmAfterADelete("chain-" + round));
		}
		assertThat(overlaps)
			.as("holds admitted after the key was deleted, overlapping another JVM's hold, "
					+ "whose release did not throw LockLostException")
			.isEmpty();
	}

	private List<String> holdsOverlappingAnotherJvmAfterADelete(String name) throws Exception {
		LockRequest request = LockRequest.of(name).waitTime(LONG_WAIT);
		ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();
		AtomicBoolean running = new AtomicBoolean(true);
		List<CompletableFuture<Void>> loops = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			loops.add(CompletableFuture.runAsync(() -> {
				while (running.get()) {
					LockHandle handle = this.nodes.node().lock(request);
					long start = System.nanoTime();
					LockSupport.parkNanos(100_000);
					long end = System.nanoTime();
					boolean lost = false;
					try {
						handle.close();
					}
					catch (LockLostException ex) {
						lost = true;
					}
					sections.add(new Section(handle.fencingToken(), start, end, lost));
				}
			}, this.nodes.executor()));
		}
		long deletedAt;
		long otherStart;
		long otherEnd;
		long otherToken;
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> sections.size() > 200);
			deletedAt = System.nanoTime();
			this.nodes.cli().command("DEL", "redis-lock:{" + name + "}");
			try (LockHandle other = this.nodes.otherNode().lock(LockRequest.of(name).waitTime(Duration.ofSeconds(5)))) {
				otherStart = System.nanoTime();
				otherToken = other.fencingToken();
				// The other JVM's critical section
				Thread.sleep(200);
				otherEnd = System.nanoTime();
			}
		}
		finally {
			running.set(false);
		}
		CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		List<String> overlaps = new ArrayList<>();
		for (Section section : sections) {
			if (section.start() - deletedAt > 0 && section.start() - otherEnd < 0 && section.end() - otherStart > 0
					&& !section.lost()) {
				overlaps.add("token " + section.token() + " (other JVM's: " + otherToken + ")");
			}
		}
		return overlaps;
	}

	/**
	 * A request with a fixed lease cannot be handed a renewed grant, so it needs the lock
	 * released in Redis: threads of its own JVM that keep passing the lock among
	 * themselves must not keep it from that for its whole wait.
	 */
	@Test
	void waiterWithAFixedLeaseIsNotStarvedByThreadsOfItsJvmPassingTheLock() throws Exception {
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong grants = new AtomicLong();
		List<CompletableFuture<Void>> loops = startHotLoops(this.nodes.node(), running, grants);
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> grants.get() > 500);
			long start = System.nanoTime();
			Optional<LockHandle> fixed = this.nodes.node()
				.tryLock(LockRequest.of("hot").leaseTime(Duration.ofSeconds(10)).waitTime(Duration.ofSeconds(5)));
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			assertThat(fixed).as("fixed-lease request granted within its 5 s wait (waited %s)", waited).isPresent();
			fixed.get().close();
			assertThat(waited).isLessThan(Duration.ofSeconds(2));
		}
		finally {
			running.set(false);
			CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
	}

	/** As above, for a request that waits without a thread (reactive callers). */
	@Test
	void asyncWaiterWithAFixedLeaseIsNotStarvedByThreadsOfItsJvmPassingTheLock() throws Exception {
		RedisLockEngine engine = new RedisLockEngine(this.nodes.locks().connectionFactory(), LockOptions.defaults());
		LockTemplate template = this.nodes.locks().template(engine);
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong grants = new AtomicLong();
		List<CompletableFuture<Void>> loops = startHotLoops(template, running, grants);
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> grants.get() > 500);
			long start = System.nanoTime();
			LockHandle fixed = engine
				.acquireAsync(LockRequest.of("hot").leaseTime(Duration.ofSeconds(10)), Duration.ofSeconds(5))
				.get(10, TimeUnit.SECONDS);
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			assertThat(fixed).as("fixed-lease async request granted within its 5 s wait (waited %s)", waited)
				.isNotNull();
			fixed.close();
			assertThat(waited).isLessThan(Duration.ofSeconds(2));
		}
		finally {
			running.set(false);
			CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		}
	}

	private List<CompletableFuture<Void>> startHotLoops(LockTemplate template, AtomicBoolean running,
			AtomicLong grants) {
		LockRequest request = LockRequest.of("hot").waitTime(LONG_WAIT);
		List<CompletableFuture<Void>> loops = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			loops.add(CompletableFuture.runAsync(() -> {
				while (running.get()) {
					try (LockHandle handle = template.lock(request)) {
						grants.incrementAndGet();
						LockSupport.parkNanos(200_000);
					}
				}
			}, this.nodes.executor()));
		}
		return loops;
	}

	/**
	 * A release that finds its lock gone in Redis wakes the next waiter of its JVM, which
	 * can take the lock at once, rather than leaving it asleep for the rest of its wait.
	 */
	@Test
	void releaseThatFindsItsLockLostWakesALocalWaiter() throws Exception {
		LockHandle first = this.nodes.node().lock(LockRequest.of("k").leaseTime(Duration.ofSeconds(30)));
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> this.nodes.node().lock(LockRequest.of("k").waitTime(LONG_WAIT)), this.nodes.executor());
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.nodes.diagnostics(this.nodes.node()).sleepingWaiterCount() == 1);
		this.nodes.cli().command("DEL", "redis-lock:{k}");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(first::close);
		await().atMost(Duration.ofSeconds(5)).until(waiter::isDone);
		try (LockHandle next = waiter.get()) {
			assertThat(next.isHeld()).isTrue();
		}
	}

	/**
	 * The exclusive lock named {@code "x (write)"} and the write lock of {@code "x"} are
	 * different locks, with different keys in Redis: holding one does not let its thread
	 * into the other while another JVM holds it.
	 */
	@Test
	void exclusiveLockNamedLikeAWriteLockDoesNotLetItsHolderIntoTheWriteLock() {
		try (LockHandle otherWriter = this.nodes.otherNode().lock(LockRequest.write("x"));
				LockHandle exclusive = this.nodes.node().lock("x (write)")) {
			Optional<LockHandle> write = this.nodes.node().tryLock(LockRequest.write("x").waitTime(Duration.ZERO));
			write.ifPresent(LockHandle::close);
			assertThat(write)
				.as("write lock of 'x' while another JVM holds it (its token %d)", otherWriter.fencingToken())
				.isEmpty();
			assertThat(exclusive.isHeld()).isTrue();
		}
	}

	/** And the other way round: a writer is not let into the exclusive lock. */
	@Test
	void writeLockDoesNotLetItsHolderIntoTheExclusiveLockNamedLikeIt() {
		try (LockHandle otherExclusive = this.nodes.otherNode().lock("x (write)");
				LockHandle writer = this.nodes.node().lock(LockRequest.write("x"))) {
			Optional<LockHandle> exclusive = this.nodes.node().tryLock("x (write)", Duration.ZERO);
			exclusive.ifPresent(LockHandle::close);
			assertThat(exclusive)
				.as("exclusive lock 'x (write)' while another JVM holds it (its token %d)",
						otherExclusive.fencingToken())
				.isEmpty();
			assertThat(writer.isHeld()).isTrue();
		}
	}

	/**
	 * Another thread of the JVM granted the write lock of {@code "x"} does not take the
	 * place of this thread's hold of the exclusive lock {@code "x (write)"}, which stays
	 * held.
	 */
	@Test
	void writeLockOfAnotherThreadDoesNotMarkTheExclusiveLockNamedLikeItLost() throws Exception {
		LockHandle exclusive = this.nodes.node().lock("x (write)");
		LockHandle writer = CompletableFuture
			.supplyAsync(() -> this.nodes.node().lock(LockRequest.write("x")), this.nodes.executor())
			.get(10, TimeUnit.SECONDS);
		try {
			assertThat(exclusive.isHeld()).as("exclusive lock 'x (write)' held while another thread writes 'x'")
				.isTrue();
			assertThatNoException().isThrownBy(exclusive::close);
		}
		finally {
			CompletableFuture.runAsync(writer::close, this.nodes.executor()).get(10, TimeUnit.SECONDS);
		}
	}

	/**
	 * A release that fails is given back in the background once Redis answers again; the
	 * tombstone it leaves must keep the last holder's token, the fence that later grants
	 * must exceed, whether that holder was granted by Redis or passed the lock in this
	 * JVM.
	 */
	@Test
	void failedReleaseGivenBackInTheBackgroundKeepsTheLastHoldersToken() throws Exception {
		FaultProxy proxy = FaultProxy.start(this.server.host(), this.server.port());
		this.proxy = proxy;
		LockTemplate node = this.nodes.locks()
			.template(proxy.host(), proxy.port(), LockOptions.defaults(), new CountingObserver());
		LockHandle first = node.lock("k");
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> node.lock(LockRequest.of("k").waitTime(LONG_WAIT)), this.nodes.executor());
		await().atMost(Duration.ofSeconds(5)).until(() -> this.nodes.diagnostics(node).sleepingWaiterCount() == 1);
		first.close();
		LockHandle second = waiter.get(5, TimeUnit.SECONDS);
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		proxy.blackhole();
		try {
			assertThatExceptionOfType(LockAccessException.class).isThrownBy(second::close);
			// The release sent meanwhile never reaches Redis; the background one does.
			proxy.endConnections();
		}
		finally {
			proxy.pass();
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> LockKeyValues.isTombstone(this.nodes.cli().get("redis-lock:{k}")));
		assertThat(LockKeyValues.token(this.nodes.cli().get("redis-lock:{k}")))
			.as("fence the background release left (grant's token %d)", first.fencingToken())
			.isGreaterThanOrEqualTo(second.fencingToken());
	}

	private static void closeQuietly(LockHandle handle) {
		try {
			handle.close();
		}
		catch (RuntimeException ex) {
			// Closed already, or lost: either way released
		}
	}

	private long serverTimeMicros() {
		List<?> time = (List<?>) this.nodes.cli().command("TIME");
		return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
	}

	private record Section(long token, long start, long end, boolean lost) {

	}

}
