package io.github.redislock;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import reactor.core.publisher.Mono;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Locks when a holder JVM crashes and when Redis restarts empty or stops answering: who
 * gets the lock, how soon, and what holders and waiters are told.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class LockFaultTests {

	private static final Duration COMMAND_TIMEOUT = LockFixture.COMMAND_TIMEOUT;

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	/** How long a channel stays subscribed after its last waiter left. */
	private static final Duration SUBSCRIPTION_LINGER = Duration.ofSeconds(1);

	/** What Lettuce waits for an answer when Spring Boot sets no timeout. */
	private static final Duration LETTUCE_DEFAULT_TIMEOUT = Duration.ofSeconds(60);

	/**
	 * A watchdog whose lease leaves 2.4 s at renewal: the engine's deadline is 800 ms.
	 */
	private static final LockOptions PAUSE_WATCHDOG = LockOptions.defaults()
		.withWatchdog(Duration.ofSeconds(3), Duration.ofMillis(600));

	private static final Pattern TOKEN = Pattern.compile("TOKEN (\\d+)");

	private RedisServer server;

	private StandaloneLocks locks;

	private RedisCli cli;

	private JavaProcess child;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.server = server;
		this.locks = new StandaloneLocks(server);
		this.cli = this.locks.cli();
		this.executor = LockFixture.executor("lock-fault-tests");
	}

	@AfterEach
	void tearDown() throws Exception {
		// A test that failed half-way may leave the shared server paused.
		this.server.resume();
		if (this.child != null) {
			this.child.close();
		}
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	@Test
	void killedHolderJvmIsSucceededWithinItsLeasePlusOneSecond() {
		Duration lease = Duration.ofSeconds(2);
		this.child = JavaProcess.start(HoldingNode.class, this.server.host(), Integer.toString(this.server.port()),
				"job", Long.toString(lease.toMillis()), "500");
		this.child.awaitOutput("HELD", Duration.ofSeconds(30));
		long holderToken = token(this.child.output());
		LockTemplate successor = this.locks.template();
		assertThat(successor.tryLock("job", Duration.ZERO)).isEmpty();
		long beforeKill = System.nanoTime();
		long leaseLeft = this.cli.pttl("redis-lock:{job}");
		this.child.kill();
		try (LockHandle handle = successor.lock(LockRequest.of("job").waitTime(Duration.ofSeconds(10)))) {
			Duration killToGrant = Duration.ofNanos(System.nanoTime() - beforeKill);
			assertThat(killToGrant).isLessThanOrEqualTo(lease.plus(Duration.ofSeconds(1)));
			// Not granted before the dead holder's lease ran out in Redis.
			assertThat(killToGrant).isGreaterThanOrEqualTo(Duration.ofMillis(leaseLeft - 50));
			assertThat(handle.fencingToken()).isGreaterThan(holderToken);
			assertThat(handle.isHeld()).isTrue();
		}
	}

	@Test
	void waiterGrantedAfterWaitingLongerThanItsFixedLeaseHoldsTheLock() {
		// A crashed owner's lock outlives the lease the waiter asks for: the waiter's
		// lease starts at its grant, not when it began to wait. A second of the lease is
		// left for the grant's reply and the check, on a busy machine.
		this.cli.command("SET", "redis-lock:{slow}", "crashed-owner:1", "PX", "2500");
		LockTemplate template = this.locks.template();
		LockRequest request = LockRequest.of("slow")
			.waitTime(Duration.ofSeconds(10))
			.leaseTime(Duration.ofMillis(2000));
		String result = template.execute(request, () -> {
			assertThat(this.cli.pttl("redis-lock:{slow}")).isGreaterThan(1000);
			return "done";
		});
		assertThat(result).isEqualTo("done");
	}

	@Test
	void waiterGrantedAfterWaitingLongerThanItsWatchdogLeaseHoldsTheLock() {
		this.cli.command("SET", "redis-lock:{slow}", "crashed-owner:1", "PX", "3000");
		LockTemplate template = this.locks
			.template(LockOptions.defaults().withWatchdog(Duration.ofMillis(2500), Duration.ofMillis(500)));
		try (LockHandle handle = template.lock(LockRequest.of("slow").waitTime(Duration.ofSeconds(10)))) {
			assertThat(this.cli.pttl("redis-lock:{slow}")).isGreaterThan(1000);
			assertThat(handle.isHeld()).isTrue();
		}
	}

	@Test
	void holderSeesTheLossWithinARenewalIntervalWhenRedisRestartsEmpty(@RedisTest.Dedicated RedisServer dedicated,
			CapturedOutput output) throws Exception {
		Duration renewInterval = Duration.ofSeconds(1);
		try (StandaloneLocks locks = new StandaloneLocks(dedicated)) {
			LockTemplate template = locks
				.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), renewInterval));
			LockHandle handle = template.lock("report");
			assertThat(handle.isHeld()).isTrue();
			dedicated.restart();
			// Within the renewal interval plus the time Lettuce takes to reconnect.
			await().atMost(renewInterval.plus(Duration.ofSeconds(2))).until(() -> !handle.isHeld());
			await().atMost(Duration.ofSeconds(1)).until(() -> lostWarning(output, "report") != null);
			assertThat(lostWarning(output, "report")).contains("WARN");
			assertThat(locks.diagnostics(template).renewedCount()).isZero();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("report"));
			assertThat(locks.diagnostics(template).heldCount()).isZero();
		}
	}

	@Test
	void executeSpanningARedisRestartThrowsLockLostAfterTheActionReturns(@RedisTest.Dedicated RedisServer dedicated)
			throws Exception {
		Duration renewInterval = Duration.ofSeconds(1);
		try (StandaloneLocks locks = new StandaloneLocks(dedicated)) {
			LockTemplate template = locks
				.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), renewInterval));
			LockTemplate otherNode = locks.template();
			AtomicBoolean actionReturned = new AtomicBoolean();
			AtomicLong otherToken = new AtomicLong();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> template.execute("report", () -> {
				dedicated.restart();
				// The restarted Redis knows no lock: another node gets it at once.
				try (LockHandle other = otherNode.lock(LockRequest.of("report").waitTime(Duration.ZERO))) {
					otherToken.set(other.fencingToken());
				}
				await().atMost(renewInterval.plus(Duration.ofSeconds(2)))
					.until(() -> locks.diagnostics(template).renewedCount() == 0);
				actionReturned.set(true);
				return "computed without protection";
			})).satisfies((ex) -> {
				assertThat(ex.getKey()).isEqualTo("report");
				assertThat(ex.getFencingToken()).isPositive().isLessThan(otherToken.get());
			});
			assertThat(actionReturned).isTrue();
			assertThat(locks.diagnostics(template).heldCount()).isZero();
		}
	}

	@Test
	void lockOnAPausedRedisFailsWithinTheCommandTimeoutAndLeavesNothingLocked() {
		LockTemplate template = this.locks.template();
		// Connected, and the server knows the scripts.
		template.run("warm-up", () -> {
		});
		this.server.pause();
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> template.lock("paused"))
			.satisfies((ex) -> {
				assertThat(ex.getKey()).isEqualTo("paused");
				assertThat(ex.getCause()).isNotNull();
			});
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThanOrEqualTo(COMMAND_TIMEOUT.plus(MARGIN));
		assertThat(this.locks.diagnostics(template).heldCount()).isZero();
		assertThat(this.locks.diagnostics(template).renewedCount()).isZero();
		stallUntilTheBackgroundReleaseTimedOut(this.locks, template);
		this.server.resume();
		// Redis runs the queued acquisition when it resumes, then the queued release.
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(LockKeyValues.holder(this.cli, "redis-lock:{paused}"))
				.as("owner left on the lock by the failed acquisition, with %d ms of lease left",
						this.cli.pttl("redis-lock:{paused}"))
				.isNull());
		try (LockHandle handle = template.lock(LockRequest.of("paused").waitTime(Duration.ofSeconds(1)))) {
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(this.locks.diagnostics(template).heldCount()).isZero();
	}

	@Test
	void failedAcquisitionIsReleasedAlsoOnAServerThatNeverRanARelease(@RedisTest.Dedicated RedisServer dedicated)
			throws Exception {
		try (StandaloneLocks locks = new StandaloneLocks(dedicated); RedisCli dedicatedCli = dedicated.cli()) {
			LockTemplate template = locks.template();
			// A long job holds a lock: the server knows the acquire script, but no lock
			// was released on it yet, as after every restart of Redis until the first
			// release.
			LockHandle longJob = template.lock("long-job");
			dedicated.pause();
			try {
				assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> template.lock("paused"));
				stallUntilTheBackgroundReleaseTimedOut(locks, template);
			}
			finally {
				dedicated.resume();
			}
			// As in lockOnAPausedRedisFailsWithinTheCommandTimeoutAndLeavesNothingLocked,
			// where the server had run a release before.
			await().atMost(Duration.ofSeconds(3))
				.untilAsserted(() -> assertThat(LockKeyValues.holder(dedicatedCli, "redis-lock:{paused}"))
					.as("owner left on the lock by the failed acquisition, with %d ms of lease left",
							dedicatedCli.pttl("redis-lock:{paused}"))
					.isNull());
			longJob.close();
		}
	}

	@Test
	void waiterWhoseRedisPausesFailsWithinItsWaitTimeHoldsNothingAndUnsubscribes() throws Exception {
		LockTemplate holder = this.locks.template();
		LockTemplate waiterNode = this.locks.template();
		LockHandle held = holder.lock("busy");
		Duration waitTime = Duration.ofSeconds(2);
		long start = System.nanoTime();
		CompletableFuture<LockHandle> waiter = CompletableFuture
			.supplyAsync(() -> waiterNode.lock(LockRequest.of("busy").waitTime(waitTime)), this.executor);
		awaitWaiting(waiterNode);
		this.server.pause();
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> waiter.get(waitTime.plus(COMMAND_TIMEOUT).plus(Duration.ofSeconds(5)).toMillis(),
					TimeUnit.MILLISECONDS))
			.havingCause()
			.isInstanceOfAny(LockAccessException.class, LockTimeoutException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThanOrEqualTo(waitTime.plus(COMMAND_TIMEOUT).plus(MARGIN));
		assertThat(this.locks.diagnostics(waiterNode).heldCount()).isZero();
		// The linger time after the waiter left; unanswered, the unsubscription and the
		// background release of the failed attempt, both on the engine's one thread, take
		// a command timeout each.
		await().atMost(SUBSCRIPTION_LINGER.plus(COMMAND_TIMEOUT.multipliedBy(2)).plus(MARGIN))
			.until(() -> this.locks.diagnostics(waiterNode).subscribedChannelCount() == 0);
		assertThat(this.locks.diagnostics(waiterNode).heldCount()).isZero();
		this.server.resume();
		// Waiting works again: a new waiter is woken by the release, long before the
		// holder's 30 second lease would run out.
		CompletableFuture<LockHandle> next = CompletableFuture
			.supplyAsync(() -> waiterNode.lock(LockRequest.of("busy").waitTime(Duration.ofSeconds(10))), this.executor);
		awaitWaiting(waiterNode);
		long released = System.nanoTime();
		held.close();
		LockHandle granted = next.get(10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(2));
		granted.close();
	}

	private void awaitWaiting(LockTemplate template) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.locks.diagnostics(template).subscribedChannelCount() == 1
					&& this.locks.diagnostics(template).sleepingWaiterCount() == 1);
	}

	/**
	 * Keep Redis paused until the engine's background release of a failed acquisition was
	 * sent and timed out too: both commands then reach Redis only when it resumes, with
	 * no one awaiting their replies.
	 */
	/**
	 * With the client's command timeout at Lettuce's default of a minute, a release that
	 * Redis does not answer ends at the engine's own deadline (a third of what is left of
	 * a watchdog lease at renewal, 800 ms here), and the release queued in the client
	 * still runs once Redis answers again: the lock, on a fixed lease of a minute, is
	 * free long before that lease.
	 */
	@Test
	void releaseOnAPausedRedisEndsByTheEnginesDeadlineAndRunsOnceRedisAnswers() {
		LockTemplate template = this.locks.template(PAUSE_WATCHDOG, LETTUCE_DEFAULT_TIMEOUT);
		LockHandle handle = template.lock(LockRequest.of("paused-release").leaseTime(Duration.ofMinutes(1)));
		this.server.pause();
		CompletableFuture<Void> closed = CompletableFuture.runAsync(handle::close, this.executor);
		await().atMost(LETTUCE_DEFAULT_TIMEOUT.dividedBy(3)).until(closed::isDone);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(closed::get)
			.havingCause()
			.isInstanceOf(LockAccessException.class)
			.withMessageContaining("'paused-release'")
			.withMessageContaining("did not answer the release within 800 ms");
		this.server.resume();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(LockKeyValues.holder(this.cli, "redis-lock:{paused-release}")).isNull());
	}

	/**
	 * With the client's command timeout at a minute, a renewal that a paused Redis does
	 * not answer counts as failed by the engine's deadline and is sent again: the
	 * observer (and so the meters) hears of it within a second, not a minute, and the
	 * holder keeps its lock through a stall shorter than what was left of its lease.
	 */
	@Test
	void renewalOnAPausedRedisFailsByTheEnginesDeadlineAndTheLockIsKept() {
		Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
		LockObserver observer = new LockObserver() {
			@Override
			public void renewalFailed(String key, @Nullable Object holdContext, Throwable failure) {
				failures.add(failure);
			}
		};
		LockTemplate template = this.locks.template(
				new RedisLockEngine(this.locks.connectionFactory(LETTUCE_DEFAULT_TIMEOUT), PAUSE_WATCHDOG, observer));
		try (LockHandle handle = template.lock("paused-renewal")) {
			this.server.pause();
			try {
				await().atMost(LETTUCE_DEFAULT_TIMEOUT.dividedBy(3)).until(() -> !failures.isEmpty());
			}
			finally {
				this.server.resume();
			}
			assertThat(failures.peek()).hasMessageContaining("did not answer the renewal");
			await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(handle::isHeld);
		}
	}

	/**
	 * As the release of a thread, that of a reactive caller ends by the engine's
	 * deadline.
	 */
	@Test
	void reactiveReleaseOnAPausedRedisEndsByTheEnginesDeadline() {
		RedisLockEngine engine = new RedisLockEngine(this.locks.connectionFactory(LETTUCE_DEFAULT_TIMEOUT),
				PAUSE_WATCHDOG);
		this.locks.template(engine);
		ReactiveLockTemplate reactive = new ReactiveLockTemplate(engine);
		CompletableFuture<String> done = reactive
			.execute(LockRequest.of("paused-reactive").leaseTime(Duration.ofMinutes(1)), Mono.fromSupplier(() -> {
				this.server.pause();
				return "work";
			}))
			.toFuture();
		await().atMost(LETTUCE_DEFAULT_TIMEOUT.dividedBy(3)).until(done::isDone);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(done::get)
			.havingCause()
			.isInstanceOf(LockAccessException.class)
			.withMessageContaining("did not answer the release within 800 ms");
		this.server.resume();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(LockKeyValues.holder(this.cli, "redis-lock:{paused-reactive}")).isNull());
	}

	private static void stallUntilTheBackgroundReleaseTimedOut(StandaloneLocks locks, LockTemplate template) {
		await().atMost(COMMAND_TIMEOUT.multipliedBy(2).plus(MARGIN))
			.until(() -> locks.diagnostics(template).retriedReleaseCount() == 1);
	}

	private static long token(String output) {
		Matcher matcher = TOKEN.matcher(output);
		assertThat(matcher.find()).as("TOKEN line in %s", output).isTrue();
		return Long.parseLong(matcher.group(1));
	}

	private static String lostWarning(CapturedOutput output, String key) {
		return output.getOut()
			.lines()
			.filter((line) -> line.contains("Lost lock '" + key + "'"))
			.findFirst()
			.orElse(null);
	}

}
