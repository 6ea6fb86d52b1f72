package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.SubscriptionStatus;
import io.github.redislock.contract.CountingObserver;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiters keep being woken by release messages after the engine's subscription connection
 * ended, here because the engine closed it itself: an unsubscribe that Redis did not
 * answer in time (a stall, a slow network) leaves the connection's subscriptions unknown,
 * so the engine drops the connection, and must then subscribe again every channel that
 * still has waiters.
 */
class SubscriptionRecoveryTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final Duration COMMAND_TIMEOUT = LockFixture.COMMAND_TIMEOUT;

	/** How long a channel stays subscribed after its last waiter left. */
	private static final Duration SUBSCRIPTION_LINGER = Duration.ofSeconds(1);

	/** Each way, so that every reply arrives after the command timeout. */
	private static final Duration LATENCY = COMMAND_TIMEOUT.plusMillis(500);

	/**
	 * The holder's lease, which alone would wake the waiter without a release message.
	 */
	private static final Duration HOLDER_LEASE = Duration.ofSeconds(60);

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	private RedisServer server;

	private FaultProxy proxy;

	private StandaloneLocks locks;

	private RedisCli cli;

	private ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.server = topology.servers();
		this.proxy = FaultProxy.start(this.server.host(), this.server.port());
		this.locks = topology.fixture();
		this.locks.flush();
		this.cli = this.server.cli();
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.proxy.pass();
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
		this.proxy.close();
		this.cli.close();
	}

	/**
	 * A waiter sleeps on one channel while the unsubscription of another, idle channel
	 * goes unanswered, so the engine closes its subscription connection. Once Redis
	 * answers again, the waiter is woken by the release, within seconds, not by the end
	 * of the holder's 60 s lease.
	 */
	@Test
	void waiterIsWokenByReleaseAfterTheEngineClosedItsSubscriptionConnection() throws Exception {
		LockTemplate waiterNode = node(this.proxy.host(), this.proxy.port());
		LockTemplate holder = node(this.server.host(), this.server.port());
		LockHandle held = holder.lock(LockRequest.of("busy").leaseTime(HOLDER_LEASE));
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
				() -> waiterNode.lock(LockRequest.of("busy").waitTime(HOLDER_LEASE.multipliedBy(2))), this.executor);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(List.of(this.locks.diagnostics(waiterNode).waiterCount(), subscribers("busy")))
						.as("waiters in the engine, subscribers on the server")
						.containsExactly(1, 1L));
		leaveAnIdleChannel(waiterNode, holder);
		// The sweep unsubscribes the idle channel a second later; its reply comes too
		// late.
		this.proxy.delay(LATENCY);
		await().atMost(SUBSCRIPTION_LINGER.multipliedBy(2).plus(COMMAND_TIMEOUT).plus(LATENCY).plus(MARGIN))
			.alias("the engine closed its subscription connection")
			.until(() -> subscribers("busy") == 0);
		this.proxy.pass();
		long releasedAt = System.nanoTime();
		held.close();
		LockHandle granted = waiter.get(HOLDER_LEASE.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("time from release to grant")
			.isLessThan(SUBSCRIPTION_LINGER.plus(COMMAND_TIMEOUT).plus(MARGIN));
		assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(this.locks.diagnostics(waiterNode).subscriptionStatus()).isEqualTo(SubscriptionStatus.CONNECTED);
		granted.close();
	}

	/**
	 * Redis disconnects the subscription connection as its user loses the right to the
	 * waited channel, and refuses the channel when Lettuce subscribes again on
	 * reconnecting: the engine reports the subscription down meanwhile, subscribes the
	 * channel itself once Redis accepts it again, and the waiter is woken by the release,
	 * not by the end of the holder's 60 s lease.
	 */
	@Test
	void waitedChannelThatLettuceFailedToSubscribeAgainIsSubscribedByTheEngine() throws Exception {
		assumeThat(Integer.parseInt(this.server.version().split("\\.")[0]))
			.as("Redis 7 disconnects the subscribers of channels their user may no longer use")
			.isGreaterThanOrEqualTo(7);
		LockTemplate waiterNode = node(this.server.host(), this.server.port());
		LockTemplate holder = node(this.server.host(), this.server.port());
		LockHandle held = holder.lock(LockRequest.of("busy").leaseTime(HOLDER_LEASE));
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
				() -> waiterNode.lock(LockRequest.of("busy").waitTime(HOLDER_LEASE.multipliedBy(2))), this.executor);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(List.of(this.locks.diagnostics(waiterNode).waiterCount(), subscribers("busy")))
						.as("waiters in the engine, subscribers on the server")
						.containsExactly(1, 1L));
		try {
			// Only the engine's control channel stays allowed.
			this.cli.command("ACL", "SETUSER", "default", "resetchannels", "&redis-lock:subscription");
			await().atMost(Duration.ofSeconds(10))
				.alias("Lettuce reconnected and its subscribe was refused")
				.until(() -> ((String) this.cli.command("CLIENT", "LIST")).lines()
					.anyMatch((client) -> client.contains(" sub=0 ") && client.contains(" cmd=subscribe ")));
			assertThat(this.locks.diagnostics(waiterNode).subscriptionStatus())
				.isEqualTo(SubscriptionStatus.DISCONNECTED);
		}
		finally {
			this.cli.command("ACL", "SETUSER", "default", "allchannels");
		}
		await().atMost(SUBSCRIPTION_LINGER.plus(COMMAND_TIMEOUT).plus(MARGIN))
			.until(() -> subscribers("busy") == 1
					&& this.locks.diagnostics(waiterNode).subscriptionStatus() == SubscriptionStatus.CONNECTED);
		long releasedAt = System.nanoTime();
		held.close();
		LockHandle granted = waiter.get(HOLDER_LEASE.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("time from release to grant")
			.isLessThan(COMMAND_TIMEOUT);
		assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
		granted.close();
	}

	/**
	 * Waits briefly for a lock the holder keeps, which subscribes its channel and leaves
	 * it idle.
	 */
	private void leaveAnIdleChannel(LockTemplate waiterNode, LockTemplate holder) {
		try (LockHandle idle = holder.lock("idle")) {
			assertThat(waiterNode.tryLock("idle", Duration.ofMillis(100))).isEmpty();
		}
		assertThat(subscribers("idle")).isOne();
	}

	private LockTemplate node(String host, int port) {
		LockTemplate node = this.locks.template(host, port, LockOptions.defaults(), new CountingObserver());
		LockFixture.warmUp(node);
		return node;
	}

	/** Subscribers the server counts on the release channel of the lock. */
	private long subscribers(String key) {
		List<?> reply = (List<?>) this.cli.command("PUBSUB", "NUMSUB", "redis-lock:{" + key + "}:released");
		return (Long) reply.get(1);
	}

}
