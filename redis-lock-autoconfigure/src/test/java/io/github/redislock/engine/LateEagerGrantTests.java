package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiter claimed by another JVM's release may get the lock otherwise before its eager
 * acquisition is answered: handed over by a thread of its own JVM. The grant that arrives
 * afterwards goes back to Redis; the waiter's thread, asking again meanwhile, must
 * acquire anew rather than re-enter that grant, or it repeats its fencing token and its
 * close releases nothing.
 *
 * <p>
 * Under load this needs a slow message thread; here {@link EagerAcquisitions.Gate} holds
 * the acquisition before it is sent, until the waiter got the lock by hand-over and gave
 * it back, and holds its grant before delivery, until the waiter's thread asked again.
 */
@RedisTest
class LateEagerGrantTests {

	private static final String KEY = "late-grant";

	private static final LockRequest WAIT = LockRequest.of(KEY).waitTime(Duration.ofSeconds(30));

	private static final long TIMEOUT_SECONDS = 10;

	private final List<LettuceConnectionFactory> connectionFactories = new ArrayList<>();

	/** A thread of its own for the waiter, since a hold belongs to a thread. */
	private final ExecutorService waiterThread = Executors
		.newSingleThreadExecutor((task) -> new Thread(task, "late-grant-waiter"));

	/** The JVM whose waiter is claimed. */
	private RedisLockEngine engine;

	private LockTemplate locks;

	/** The other JVM, whose release claims the waiter. */
	private RedisLockEngine otherEngine;

	private LockTemplate otherJvm;

	@BeforeEach
	void setUp(RedisServer server) {
		this.engine = engine(server);
		this.locks = new LockTemplate(this.engine);
		this.otherEngine = engine(server);
		this.otherJvm = new LockTemplate(this.otherEngine);
	}

	private RedisLockEngine engine(RedisServer server) {
		// A command timeout within the watchdog's renew margin, which the engine warns
		// of.
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		this.connectionFactories.add(connectionFactory);
		return new RedisLockEngine(connectionFactory);
	}

	@AfterEach
	void tearDown() throws Exception {
		this.waiterThread.shutdownNow();
		this.waiterThread.awaitTermination(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		this.locks.close();
		this.otherJvm.close();
		this.connectionFactories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void waiterHandedTheLockLocallyAcquiresAnewInsteadOfReenteringItsLateEagerGrant() throws Exception {
		Thread waiter = this.waiterThread.submit(Thread::currentThread).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		HeldEagerAcquisition held = new HeldEagerAcquisition();
		this.engine.eagerAcquisitions().gate(held);
		LockHandle remote = this.otherJvm.lock(KEY);
		Future<Section> waited = this.waiterThread.submit(this::criticalSection);
		await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
			.until(() -> this.engine.diagnostics().sleepingWaiterCount() == 1);
		remote.close();
		Supplier<CompletionStage<@Nullable LockHold>> send = held.claimed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		assertThat(this.engine.diagnostics().sleepingWaiterCount()).as("claimed, still asleep").isOne();

		// A thread of this JVM takes the free lock first, and hands it to the waiter.
		long local;
		try (LockHandle handle = this.locks.lock(KEY)) {
			local = handle.fencingToken();
		}
		Section handedOver = waited.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		assertThat(handedOver.fencingToken()).as("handed over locally").isEqualTo(local + 1);
		assertThat(handedOver.released()).isTrue();

		// The claimed waiter's acquisition goes out only now, and finds the lock free.
		LockHold grant = send.get().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		assertThat(grant).as("eager grant").isNotNull();
		assertThat(grant.ownerThread()).isSameAs(waiter);

		// The waiter's thread asks again before the grant reaches the waiter, who left:
		// it waits for the grant to go back, or (the bug) re-enters it at once.
		Future<List<Section>> again = this.waiterThread.submit(() -> List.of(criticalSection(), criticalSection()));
		await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
			.until(() -> again.isDone() || this.engine.diagnostics().sleepingWaiterCount() == 1);
		held.answer.complete(grant);
		List<Section> sections = again.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);

		assertThat(sections.get(0).fencingToken()).as("first lock after the hand-over")
			.isGreaterThan(handedOver.fencingToken());
		assertThat(sections.get(1).fencingToken()).as("next lock of the same thread")
			.isGreaterThan(sections.get(0).fencingToken());
		assertThat(sections).as("each close released the lock: one handle per hold").allMatch(Section::released);
		await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
			.untilAsserted(() -> assertThat(this.locks.remainingLease(KEY)).as("key in Redis").isEmpty());
		assertThat(this.engine.diagnostics().heldCount()).isZero();
		assertThat(this.otherEngine.diagnostics().heldCount()).isZero();
		try (LockHandle next = this.otherJvm.lock(KEY)) {
			assertThat(next.fencingToken()).isGreaterThan(sections.get(1).fencingToken());
		}
	}

	/**
	 * Lock and unlock on the calling thread.
	 * @return the fencing token, and whether the close released the lock: nothing of it
	 * left held, here or in Redis
	 */
	private Section criticalSection() {
		long fencingToken;
		try (LockHandle handle = this.locks.lock(WAIT)) {
			fencingToken = handle.fencingToken();
		}
		boolean released = this.engine.diagnostics().heldCount() == 0 && this.locks.remainingLease(KEY).isEmpty();
		return new Section(fencingToken, released);
	}

	private record Section(long fencingToken, boolean released) {
	}

	/**
	 * Holds the first eager acquisition: the test sends it, and answers the waiter, when
	 * it chooses. Any later one goes through.
	 */
	private static final class HeldEagerAcquisition implements EagerAcquisitions.Gate {

		final CompletableFuture<Supplier<CompletionStage<@Nullable LockHold>>> claimed = new CompletableFuture<>();

		final CompletableFuture<@Nullable LockHold> answer = new CompletableFuture<>();

		@Override
		public CompletionStage<@Nullable LockHold> pass(Supplier<CompletionStage<@Nullable LockHold>> send) {
			return this.claimed.complete(send) ? this.answer : send.get();
		}

	}

}
