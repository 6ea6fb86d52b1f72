package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.redislock.test.JavaProcess;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Locks when a holder JVM crashes and when Redis restarts empty or stops answering: who
 * gets the lock, how soon, and what the holder and waiters are told.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class LockFaultTests {

	private static final Duration COMMAND_TIMEOUT = TestLocks.COMMAND_TIMEOUT;

	/** Time allowed on top of a computed bound for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	private static final Pattern HELD = Pattern.compile("HELD (\\d+)");

	private RedisServer server;

	private TestLocks locks;

	private RedisCli cli;

	private JavaProcess child;

	private ExecutorService executor;

	@BeforeEach
	void setUp(RedisServer server) {
		this.server = server;
		this.locks = new TestLocks(server);
		this.cli = this.locks.cli();
		this.executor = Executors.newSingleThreadExecutor();
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
		long holderToken = heldToken(this.child.output());
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
		// A crashed owner's lock outlives the lease the waiter asks for.
		this.cli.command("SET", "redis-lock:{slow}", "crashed-owner:1", "PX", "1500");
		LockTemplate template = this.locks.template();
		LockRequest request = LockRequest.of("slow").waitTime(Duration.ofSeconds(5)).leaseTime(Duration.ofSeconds(1));
		String result = template.execute(request, () -> {
			assertThat(this.cli.pttl("redis-lock:{slow}")).isGreaterThan(500);
			return "done";
		});
		assertThat(result).isEqualTo("done");
	}

	@Test
	void waiterGrantedAfterWaitingLongerThanItsWatchdogLeaseHoldsTheLock() {
		this.cli.command("SET", "redis-lock:{slow}", "crashed-owner:1", "PX", "1500");
		LockTemplate template = this.locks
			.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(1), Duration.ofMillis(300)));
		try (LockHandle handle = template.lock(LockRequest.of("slow").waitTime(Duration.ofSeconds(5)))) {
			assertThat(this.cli.pttl("redis-lock:{slow}")).isGreaterThan(500);
			assertThat(handle.isHeld()).isTrue();
		}
	}

	@Test
	void holderSeesTheLossWithinARenewalIntervalWhenRedisRestartsEmpty(@RedisTest.Dedicated RedisServer dedicated,
			CapturedOutput output) throws Exception {
		Duration renewInterval = Duration.ofSeconds(1);
		try (TestLocks locks = new TestLocks(dedicated)) {
			LockTemplate template = locks
				.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), renewInterval));
			LockHandle handle = template.lock("report");
			assertThat(handle.isHeld()).isTrue();
			dedicated.restart();
			await().atMost(renewInterval.plus(Duration.ofSeconds(2))).until(() -> !handle.isHeld());
			await().atMost(Duration.ofSeconds(1)).until(() -> lostWarning(output, "report") != null);
			assertThat(lostWarning(output, "report")).contains("WARN")
				.contains("fencing token " + handle.fencingToken());
			assertThat(template.engine().renewedCount()).isZero();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("report"));
			assertThat(template.engine().heldCount()).isZero();
		}
	}

	@Test
	void executeSpanningARedisRestartThrowsLockLostAfterTheActionReturns(@RedisTest.Dedicated RedisServer dedicated)
			throws Exception {
		Duration renewInterval = Duration.ofSeconds(1);
		try (TestLocks locks = new TestLocks(dedicated)) {
			LockTemplate template = locks
				.template(LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), renewInterval));
			LockTemplate otherNode = locks.template();
			AtomicBoolean actionReturned = new AtomicBoolean();
			long[] otherToken = new long[1];
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> template.execute("report", () -> {
				dedicated.restart();
				// The restarted Redis knows no lock: another node gets it at once.
				try (LockHandle other = otherNode.lock(LockRequest.of("report").waitTime(Duration.ZERO))) {
					otherToken[0] = other.fencingToken();
				}
				await().atMost(renewInterval.plus(Duration.ofSeconds(2)))
					.until(() -> template.engine().renewedCount() == 0);
				actionReturned.set(true);
				return "computed without protection";
			})).satisfies((ex) -> {
				assertThat(ex.getKey()).isEqualTo("report");
				assertThat(ex.getFencingToken()).isPositive().isLessThan(otherToken[0]);
			});
			assertThat(actionReturned).isTrue();
			assertThat(template.engine().heldCount()).isZero();
		}
	}

	@Test
	void lockOnAPausedRedisFailsWithinTheCommandTimeoutAndLeavesNothingLocked() {
		LockTemplate template = this.locks.template();
		// Connected, and the scripts are known to the server.
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
		assertThat(template.engine().heldCount()).isZero();
		assertThat(template.engine().renewedCount()).isZero();
		this.server.resume();
		// Redis runs the queued acquisition when it resumes: the engine must release it.
		await().atMost(Duration.ofSeconds(5)).until(() -> this.cli.get("redis-lock:{paused}") == null);
		try (LockHandle handle = template.lock(LockRequest.of("paused").waitTime(Duration.ofSeconds(1)))) {
			assertThat(handle.isHeld()).isTrue();
		}
		assertThat(template.engine().heldCount()).isZero();
	}

	@Test
	void failedAcquisitionIsReleasedAlsoOnAServerThatNeverRanARelease(@RedisTest.Dedicated RedisServer dedicated)
			throws Exception {
		try (TestLocks locks = new TestLocks(dedicated); RedisCli cli = dedicated.cli()) {
			LockTemplate template = locks.template();
			// A long job holds a lock: the server knows the acquire script, and no lock
			// was released on it yet.
			LockHandle longJob = template.lock("long-job");
			dedicated.pause();
			try {
				assertThatExceptionOfType(LockAccessException.class).isThrownBy(() -> template.lock("paused"));
			}
			finally {
				dedicated.resume();
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> cli.get("redis-lock:{paused}") == null);
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
		await().atMost(Duration.ofSeconds(5))
			.until(() -> waiterNode.engine().subscribedChannelCount() == 1 && waitingThreads() >= 1);
		this.server.pause();
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(
					() -> waiter.get(waitTime.plus(COMMAND_TIMEOUT).plusSeconds(5).toMillis(), TimeUnit.MILLISECONDS))
			.havingCause()
			.isInstanceOfAny(LockAccessException.class, LockTimeoutException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThanOrEqualTo(waitTime.plus(COMMAND_TIMEOUT).plus(MARGIN));
		assertThat(waiterNode.engine().heldCount()).isZero();
		long left = System.nanoTime();
		await().atMost(Duration.ofSeconds(10)).until(() -> waiterNode.engine().subscribedChannelCount() == 0);
		System.out.println("XX unsubscribed after " + Duration.ofNanos(System.nanoTime() - left));
		this.server.resume();
		held.close();
	}

	private static long heldToken(String output) {
		Matcher matcher = HELD.matcher(output);
		assertThat(matcher.find()).as("HELD line in %s", output).isTrue();
		return Long.parseLong(matcher.group(1));
	}

	private static String lostWarning(CapturedOutput output, String key) {
		return output.getOut()
			.lines()
			.filter((line) -> line.contains("Lost lock '" + key + "'"))
			.findFirst()
			.orElse(null);
	}

	private static long waitingThreads() {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().getState() == Thread.State.TIMED_WAITING)
			.filter((entry) -> List.of(entry.getValue())
				.stream()
				.anyMatch((frame) -> frame.getClassName().endsWith("ReleaseSubscriptions$Waiter")))
			.count();
	}

}
