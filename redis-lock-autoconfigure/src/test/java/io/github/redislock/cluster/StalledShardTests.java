package io.github.redislock.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.ClusterLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One primary of a cluster stalls ({@code SIGSTOP}) and stays in charge of its slots: its
 * replica may not take over, and the other primaries go on serving theirs
 * ({@code cluster-require-full-coverage no}). Lock operations on the healthy primaries
 * must neither wait for the stalled one nor fail because of it, although the command
 * timeout is far longer than the lease: their leases are renewed, their releases and
 * grants answer at once, and only the locks of the stalled shard are reported lost, once
 * their lease ran out.
 */
@ExtendWith(OutputCaptureExtension.class)
class StalledShardTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration RENEW_INTERVAL = Duration.ofSeconds(1);

	/** What a client waits for an answer from the stalled primary. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private static final int LOCKS_PER_PRIMARY = 4;

	@RegisterExtension
	static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();

	private ClusterLocks locks;

	private RedisServer stalled;

	private final List<LettuceConnectionFactory> connected = new ArrayList<>();

	@BeforeAll
	static void letTheOtherShardsServeWhileOneStalls() {
		for (RedisServer node : topology.servers().nodes()) {
			try (RedisCli cli = node.cli()) {
				cli.command("CONFIG", "SET", "cluster-require-full-coverage", "no");
				cli.command("CONFIG", "SET", "cluster-replica-no-failover", "yes");
			}
		}
	}

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
	}

	@AfterEach
	void tearDown() throws Exception {
		if (this.stalled != null) {
			this.stalled.resume();
		}
		this.locks.close();
		this.connected.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void stalledPrimaryHoldsUpNoLockOnTheOthers(CapturedOutput output) throws Exception {
		LockOptions options = LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL);
		LockTemplate holder = this.locks.template(options, COMMAND_TIMEOUT);
		LockTemplate other = this.locks.template(options, COMMAND_TIMEOUT);
		List<String> names = ClusterLocks.namesOnEveryPrimary(topology.servers(), "stall", LOCKS_PER_PRIMARY + 1);
		// The first of every three names lands on the primary that stalls.
		List<String> onStalled = new ArrayList<>();
		List<String> onHealthy = new ArrayList<>();
		for (int i = 0; i < 3 * LOCKS_PER_PRIMARY; i++) {
			((i % 3 == 0) ? onStalled : onHealthy).add(names.get(i));
		}
		List<LockHandle> stalledHandles = new ArrayList<>();
		for (String name : onStalled) {
			stalledHandles.add(holder.lock(name));
		}
		List<LockHandle> healthyHandles = new ArrayList<>();
		for (String name : onHealthy) {
			healthyHandles.add(holder.lock(name));
		}
		// The other application is connected and working too.
		LockHandle working = other.lock(names.get(3 * LOCKS_PER_PRIMARY + 1));
		LettuceConnectionFactory connectedBefore = staticViewClient();
		this.stalled = this.locks.primaryOf(onStalled.get(0));
		this.stalled.pause();
		try (HealthyLocks healthy = new HealthyLocks(onHealthy, healthyHandles)) {
			String released = onHealthy.get(0);
			healthy.forget(released);
			long releaseStartedAt = System.nanoTime();
			healthyHandles.get(0).close();
			Optional<LockHandle> taken = other.tryLock(LockRequest.of(released).waitTime(Duration.ZERO));
			assertThat(Duration.ofNanos(System.nanoTime() - releaseStartedAt))
				.as("release on a healthy primary and another node's grant")
				.isLessThan(LEASE);
			assertThat(taken).as("grant of the released lock to the other node").isPresent();
			taken.get().close();
			await().atMost(LEASE.plusSeconds(2)).untilAsserted(() -> {
				assertThat(stalledHandles).noneMatch(LockHandle::isHeld);
				for (String name : onStalled) {
					assertThat(output).contains("Lost lock '" + name + "'");
				}
			});
			// A lock template that starts now, on a client connected before the stall
			// that
			// does not refresh its view of the cluster: it still takes the stalled
			// primary
			// for a healthy one, yet learns how release messages travel without waiting
			// for its answer.
			LockTemplate started = new LockTemplate(new RedisLockEngine(connectedBefore, options));
			String late = names.get(3 * LOCKS_PER_PRIMARY + 2);
			long startedAt = System.nanoTime();
			started.lock(late).close();
			assertThat(Duration.ofNanos(System.nanoTime() - startedAt)).as("first lock and release of a new template")
				.isLessThan(LEASE);
			assertThat(output).contains("did not tell their version")
				.contains(this.stalled.host() + ":" + this.stalled.port());
			started.close();
			int checksBefore = healthy.checks();
			await().during(LEASE.multipliedBy(2))
				.atMost(LEASE.multipliedBy(2).plusSeconds(5))
				.untilAsserted(() -> assertThat(healthy.lapses).isEmpty());
			// A tenth of the checks due in two leases: the checker went on checking.
			assertThat(healthy.checks() - checksBefore).as("checks of the healthy locks in two leases")
				.isGreaterThanOrEqualTo(12);
			assertThat(working.isHeld()).isTrue();
		}
	}

	/**
	 * A cluster client with the default topology options, which do not refresh its view
	 * of the cluster, connected now.
	 */
	private LettuceConnectionFactory staticViewClient() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(topology.servers().seeds()),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		this.connected.add(factory);
		new StringRedisTemplate(factory).hasKey("connect");
		return factory;
	}

	/**
	 * Checks every 50 ms that the locks on the healthy primaries are held, as their
	 * handles say and as Redis has it, and records every lapse. A check that fails is
	 * recorded as a lapse too: a scheduled task that throws is never run again, and a
	 * checker that stopped would find nothing.
	 */
	private final class HealthyLocks implements AutoCloseable {

		final Queue<String> lapses = new ConcurrentLinkedQueue<>();

		private final AtomicInteger checks = new AtomicInteger();

		private final List<String> names;

		private final List<LockHandle> handles;

		private final List<RedisCli> clis = new ArrayList<>();

		private final Queue<String> forgotten = new ConcurrentLinkedQueue<>();

		private final ScheduledExecutorService checker = Executors.newSingleThreadScheduledExecutor();

		HealthyLocks(List<String> names, List<LockHandle> handles) {
			this.names = names;
			this.handles = handles;
			for (String name : names) {
				this.clis.add(StalledShardTests.this.locks.cliOf(name));
			}
			this.checker.scheduleWithFixedDelay(this::check, 0, 50, TimeUnit.MILLISECONDS);
		}

		/** Stop checking a lock the test releases. */
		void forget(String name) {
			this.forgotten.add(name);
		}

		/** How many checks were completed so far. */
		int checks() {
			return this.checks.get();
		}

		private void check() {
			try {
				checkEveryLock();
				this.checks.incrementAndGet();
			}
			catch (RuntimeException ex) {
				this.lapses.add("check failed: " + ex);
			}
		}

		private void checkEveryLock() {
			for (int i = 0; i < this.names.size(); i++) {
				String name = this.names.get(i);
				if (this.forgotten.contains(name)) {
					continue;
				}
				if (!this.handles.get(i).isHeld()) {
					this.lapses.add(name + " reported not held");
				}
				else if (this.clis.get(i).pttl(ClusterLocks.lockKey(name)) <= 0) {
					this.lapses.add(name + " expired in Redis");
				}
			}
		}

		@Override
		public void close() throws InterruptedException {
			this.checker.shutdownNow();
			this.checker.awaitTermination(5, TimeUnit.SECONDS);
		}

	}

}
