package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.LockTimeoutException;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Network faults between one node and Redis, injected by a {@link FaultProxy}: a holder
 * cut off past its lease learns it lost the lock and its successor gets a greater token;
 * a waiter cut off fails in bounded time and leaves nothing behind; a connection reset
 * during an acquisition never leaves a lock that its client does not know it holds.
 */
class NetworkFaultTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration COMMAND_TIMEOUT = LockFixture.COMMAND_TIMEOUT;

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	/** How long a channel stays subscribed after its last waiter left. */
	private static final Duration SUBSCRIPTION_LINGER = Duration.ofSeconds(1);

	private RedisServer server;

	private FaultProxy proxy;

	private StandaloneLocks locks;

	private CountingObserver observer;

	private RedisCli cli;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.server = topology.servers();
		this.proxy = FaultProxy.start(this.server.host(), this.server.port());
		this.locks = topology.fixture();
		this.locks.flush();
		this.observer = new CountingObserver();
		this.cli = this.server.cli();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws Exception {
		// Let the proxied nodes close their connections cleanly.
		this.proxy.pass();
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
		this.proxy.close();
		this.cli.close();
	}

	/**
	 * A holder cut off longer than its fixed lease: its handle reports the loss, a node
	 * that reaches Redis takes the lock with a greater fencing token, and the holder's
	 * release, once the network is back, says the lock was lost and leaves the
	 * successor's lock alone.
	 */
	@Test
	void holderCutOffPastItsFixedLeaseLosesTheLockToANodeWithAGreaterToken() {
		LockTemplate holder = proxiedNode(LockOptions.defaults());
		LockTemplate rival = directNode();
		LockHandle handle = holder.lock(LockRequest.of("job").leaseTime(Duration.ofSeconds(1)));
		this.proxy.blackhole();
		try (LockHandle successor = rival.lock(LockRequest.of("job").waitTime(Duration.ofSeconds(5)))) {
			String successorOwner = LockKeyValues.holder(this.cli, "redis-lock:{job}");
			assertThat(handle.isHeld()).isFalse();
			assertThat(successor.fencingToken()).isGreaterThan(handle.fencingToken());
			this.proxy.pass();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
				.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(handle.fencingToken()));
			assertThat(this.observer.losses("job")).isEqualTo(1);
			assertThat(successor.isHeld()).isTrue();
			assertThat(LockKeyValues.holder(this.cli, "redis-lock:{job}")).isNotNull().isEqualTo(successorOwner);
		}
	}

	/**
	 * A holder cut off longer than its watchdog lease is told of the loss while still cut
	 * off; a node that reaches Redis takes the lock with a greater fencing token, and the
	 * renewals the partition held back change nothing when they arrive late.
	 */
	@Test
	void holderCutOffPastItsWatchdogLeaseLearnsItLostTheLock() {
		Duration lease = Duration.ofMillis(1500);
		LockTemplate holder = proxiedNode(LockOptions.defaults().withWatchdog(lease, Duration.ofMillis(500)));
		LockTemplate rival = directNode();
		LockHandle handle = holder.lock("job");
		this.proxy.blackhole();
		await().atMost(lease.plus(COMMAND_TIMEOUT).plus(MARGIN)).until(() -> this.observer.losses("job") == 1);
		assertThat(handle.isHeld()).isFalse();
		assertThat(this.locks.diagnostics(holder).renewedCount()).isZero();
		try (LockHandle successor = rival.lock(LockRequest.of("job").waitTime(Duration.ofSeconds(5)))) {
			String successorOwner = LockKeyValues.holder(this.cli, "redis-lock:{job}");
			assertThat(successor.fencingToken()).isGreaterThan(handle.fencingToken());
			this.proxy.pass();
			// Sent after the held renewals on the same connection, so they ran first.
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("job"));
			assertThat(LockKeyValues.holder(this.cli, "redis-lock:{job}")).isEqualTo(successorOwner);
			assertThat(this.cli.pttl("redis-lock:{job}")).isGreaterThan(lease.toMillis());
			assertThat(successor.isHeld()).isTrue();
		}
	}

	/**
	 * A watchdog lock whose grant took most of its lease to arrive (here a slow network;
	 * equally a cold connection or a reconnect) is renewed before the part of the lease
	 * it knows of runs out: the holder never sees a loss that did not happen, and its
	 * release succeeds.
	 */
	@Test
	void slowGrantIsRenewedBeforeItsLeaseRunsOut() {
		Duration lease = Duration.ofSeconds(3);
		LockTemplate holder = proxiedNode(LockOptions.defaults().withWatchdog(lease, Duration.ofMillis(1500)));
		// A round trip of 1.6 s: the grant leaves 1.4 s of the lease as this node counts
		// it (from when the request was sent), less than the renewal interval, so a first
		// renewal due an interval after the grant arrived would come too late; in Redis
		// the lease runs 0.8 s more.
		this.proxy.delay(Duration.ofMillis(800));
		LockHandle handle = holder.lock("slow");
		long granted = System.nanoTime();
		this.proxy.pass();
		await().pollInterval(Duration.ofMillis(20))
			.atMost(lease.plus(MARGIN))
			.failFast("the handle reported its lock lost", () -> !handle.isHeld())
			.until(() -> System.nanoTime() - granted > lease.toNanos());
		assertThat(this.cli.pttl("redis-lock:{slow}")).isPositive();
		handle.close();
		assertThat(this.observer.losses("slow")).isZero();
	}

	/**
	 * A holder whose renewal answers are late (Redis ran them; their replies wait) past
	 * the end of the lease it knows of, and which re-enters its lock then: Redis is
	 * asked, and the reentry gets the same grant, or, if the watchdog gave up on the
	 * lease first, the holder is told of the loss. Never refused while the handle says it
	 * holds the lock: the nested acquisition must not ask Redis as a stranger, which its
	 * own hold would refuse.
	 */
	@Test
	void reentryWhileRenewalAnswersAreLateAsksRedisUnderItsOwnGrant() {
		Duration lease = Duration.ofSeconds(3);
		LockTemplate holder = proxiedNode(LockOptions.defaults().withWatchdog(lease, Duration.ofSeconds(2)));
		LockHandle handle = holder.lock("late");
		this.proxy.holdReplies();
		await().pollInterval(Duration.ofMillis(2)).atMost(lease.plus(MARGIN)).until(() -> !handle.isHeld());
		this.executor.submit(() -> {
			LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
			this.proxy.pass();
		});
		Optional<LockHandle> nested = holder.tryLock(LockRequest.of("late").waitTime(Duration.ZERO));
		if (nested.isPresent()) {
			assertThat(nested.get().fencingToken()).isEqualTo(handle.fencingToken());
			nested.get().close();
			assertThat(handle.isHeld()).isTrue();
			handle.close();
			assertThat(this.observer.losses("late")).isZero();
		}
		else {
			await().atMost(COMMAND_TIMEOUT.plus(MARGIN))
				.untilAsserted(
						() -> assertThat(this.observer.losses("late")).as("losses reported after a refused reentry")
							.isEqualTo(1));
			assertThat(handle.isHeld()).isFalse();
		}
	}

	/**
	 * A waiter cut off from Redis fails with an exception naming the key within its wait
	 * time plus a command timeout, holds nothing, and leaves no subscription, in the
	 * engine or on the server; the lock can be taken at once when its holder releases it.
	 */
	@Test
	void waiterCutOffFailsInBoundedTimeHoldsNothingAndUnsubscribes() throws Exception {
		LockTemplate holder = directNode();
		LockTemplate waiterNode = proxiedNode(LockOptions.defaults());
		LockTemplate third = directNode();
		LockHandle held = holder.lock("busy");
		Duration waitTime = Duration.ofSeconds(2);
		long start = System.nanoTime();
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> waiterNode.lock(LockRequest.of("busy").waitTime(waitTime)), this.executor);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(List.of(this.locks.diagnostics(waiterNode).waiterCount(), subscribers("busy")))
						.as("waiters in the engine, subscribers on the server")
						.containsExactly(1, 1L));
		this.proxy.blackhole();
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(
					() -> waiter.get(waitTime.plus(COMMAND_TIMEOUT).plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS))
			.havingCause()
			.isInstanceOfAny(LockAccessException.class, LockTimeoutException.class)
			.withMessageContaining("'busy'");
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThanOrEqualTo(waitTime.plus(COMMAND_TIMEOUT).plus(MARGIN));
		assertThat(this.locks.diagnostics(waiterNode).heldCount()).isZero();
		assertThat(this.locks.diagnostics(waiterNode).waiterCount()).isZero();
		// Unanswered, the unsubscription and a background release each take a command
		// timeout on the engine's one thread.
		await().atMost(SUBSCRIPTION_LINGER.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(MARGIN))
			.until(() -> this.locks.diagnostics(waiterNode).subscribedChannelCount() == 0);
		this.proxy.pass();
		await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("busy") == 0);
		held.close();
		try (LockHandle next = third.lock(LockRequest.of("busy").waitTime(Duration.ZERO))) {
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		}
		assertThat(this.locks.diagnostics(waiterNode).heldCount()).isZero();
	}

	/**
	 * Connections reset at random moments of acquisitions, before or after Redis ran the
	 * acquire script, sometimes with reconnection refused for a while: every attempt
	 * either returns a handle on a lock its node holds, or fails, and then the lock is
	 * free or freed within seconds, far sooner than its 15 s lease.
	 */
	@Test
	void connectionResetDuringAcquisitionNeverLeavesAnUnknownLock() {
		int attempts = 24;
		Duration lease = Duration.ofSeconds(15);
		Duration latency = Duration.ofMillis(30);
		LockTemplate node = proxiedNode(LockOptions.defaults());
		this.proxy.delay(latency);
		int acquired = 0;
		int grantedButFailed = 0;
		for (int i = 0; i < attempts; i++) {
			String key = "reset:" + i;
			LockRequest request = LockRequest.of(key).waitTime(Duration.ZERO);
			if (i % 2 == 0) {
				request = request.leaseTime(lease);
			}
			LockRequest attempt = request;
			CompletableFuture<LockHandle> outcome = CompletableFuture.supplyAsync(() -> node.lock(attempt),
					this.executor);
			// Request and reply each wait the latency in the proxy: resets land before
			// the script ran, or after it ran but before its reply arrived.
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(latency.multipliedBy(3).toNanos()));
			boolean refuse = i % 4 == 3;
			if (refuse) {
				this.proxy.refuse();
			}
			this.proxy.closeConnections();
			if (refuse) {
				LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
				this.proxy.delay(latency);
			}
			LockHandle handle = null;
			Throwable failure = null;
			try {
				handle = outcome.get(COMMAND_TIMEOUT.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException ex) {
				failure = ex.getCause();
			}
			catch (Exception ex) {
				throw new AssertionError("Attempt " + i + " did not end", ex);
			}
			if (handle != null) {
				acquired++;
				assertThat(handle.isHeld()).isTrue();
				assertThat(LockKeyValues.holder(this.cli, "redis-lock:{" + key + "}")).as("lock of a returned handle")
					.isNotNull();
				try {
					handle.close();
				}
				catch (LockAccessException ex) {
					// A grant that came back before the reset may send its release into
					// it:
					// the release is reported and given back in the background.
				}
				await().pollInterval(Duration.ofMillis(20))
					.atMost(COMMAND_TIMEOUT.multipliedBy(2).plus(MARGIN))
					.until(() -> LockKeyValues.holder(this.cli, "redis-lock:{" + key + "}") == null);
				continue;
			}
			assertThat(failure).as("attempt %d", i).isInstanceOf(LockException.class);
			// Only a grant writes the lock key (held, or the tombstone its release left):
			// Redis ran the script.
			if (this.cli.get("redis-lock:{" + key + "}") != null) {
				grantedButFailed++;
			}
			Throwable reported = failure;
			int index = i;
			await().pollInterval(Duration.ofMillis(20))
				.atMost(COMMAND_TIMEOUT.multipliedBy(2).plus(MARGIN))
				.untilAsserted(() -> assertThat(LockKeyValues.holder(this.cli, "redis-lock:{" + key + "}"))
					.as("lock left by attempt %d, which failed with %s, with %d ms of lease left", index, reported,
							this.cli.pttl("redis-lock:{" + key + "}"))
					.isNull());
		}
		assertThat(acquired).as("attempts that returned a handle").isLessThan(attempts);
		assertThat(grantedButFailed).as("attempts that Redis granted but whose client saw a failure").isPositive();
		assertThat(this.locks.diagnostics(node).heldCount()).isZero();
	}

	/**
	 * Acquisitions that Redis granted but whose answers are still on their way as the
	 * engine shuts down: once the shutdown returns, no lock Redis granted them is left
	 * held.
	 */
	@Test
	void shutdownReleasesTheGrantsOfAcquisitionsInFlight() {
		LockTemplate node = proxiedNode(LockOptions.defaults());
		this.proxy.holdReplies();
		int attempts = 8;
		List<Thread> callers = new ArrayList<>();
		for (int i = 0; i < attempts; i++) {
			String key = "in-flight:" + i;
			Thread caller = new Thread(() -> {
				try {
					node.tryLock(LockRequest.of(key).waitTime(Duration.ZERO));
				}
				catch (RuntimeException ex) {
					// Found lost or refused by the shutdown: either is fine here.
				}
			});
			callers.add(caller);
			caller.start();
		}
		// Redis ran every script: each lock is held, its answer held back by the proxy.
		await().atMost(Duration.ofSeconds(5))
			.until(() -> IntStream.range(0, attempts)
				.allMatch((i) -> LockKeyValues.holder(this.cli, "redis-lock:{in-flight:" + i + "}") != null));
		Thread shuttingDown = Thread.currentThread();
		CompletableFuture<Void> answers = CompletableFuture.runAsync(() -> {
			try {
				// Once the shutdown waits for the acquisitions, let their answers
				// through.
				await().atMost(Duration.ofSeconds(5)).until(() -> waitsInShutdown(shuttingDown));
			}
			finally {
				this.proxy.pass();
			}
		}, this.executor);
		node.shutdown(Duration.ZERO);
		for (int i = 0; i < attempts; i++) {
			assertThat(LockKeyValues.holder(this.cli, "redis-lock:{in-flight:" + i + "}")).as("in-flight:" + i)
				.isNull();
		}
		answers.exceptionally((ex) -> null).join();
	}

	private static boolean waitsInShutdown(Thread thread) {
		for (StackTraceElement frame : thread.getStackTrace()) {
			if (frame.getClassName().endsWith(".EngineShutdown") && frame.getMethodName().equals("await")) {
				return true;
			}
		}
		return false;
	}

	/** A node behind the proxy, connected, whose engine reports to the observer. */
	private LockTemplate proxiedNode(LockOptions options) {
		LockTemplate node = this.locks.template(this.proxy.host(), this.proxy.port(), options, this.observer);
		LockFixture.warmUp(node);
		return node;
	}

	/** A node connected straight to Redis. */
	private LockTemplate directNode() {
		LockTemplate node = this.locks.template(this.server.host(), this.server.port(), LockOptions.defaults(),
				new CountingObserver());
		LockFixture.warmUp(node);
		return node;
	}

	/** Subscribers the server counts on the release channel of the lock. */
	private long subscribers(String key) {
		List<?> reply = (List<?>) this.cli.command("PUBSUB", "NUMSUB", "redis-lock:{" + key + "}:released");
		return (Long) reply.get(1);
	}

}
