package io.github.redislock.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.SubscriptionStatus;
import io.github.redislock.contract.ClusterLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Sharded subscriptions ({@code SSUBSCRIBE}) of waiters on a Redis 7 cluster: a
 * subscription that Redis refuses leaves nothing behind, in the engine or on the server,
 * and subscriptions that a node ended are made again.
 */
class ShardedSubscriptionTests {

	private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(20);

	/** How long a channel stays subscribed after its last waiter left. */
	private static final Duration SUBSCRIPTION_LINGER = Duration.ofSeconds(1);

	@RegisterExtension
	static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();

	private ClusterLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	@BeforeEach
	void setUp() {
		assumeThat(Integer.parseInt(topology.servers().nodes().get(0).version().split("\\.")[0])).as("sharded pub/sub")
			.isGreaterThanOrEqualTo(7);
		topology.servers().awaitHealthy(HEALTHY_TIMEOUT);
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template();
		this.otherNode = this.locks.template();
	}

	@AfterEach
	void tearDown() throws Exception {
		if (this.locks != null) {
			this.locks.close();
		}
	}

	/**
	 * The primary of a lock refuses the waiter's {@code SSUBSCRIBE} (its user may not use
	 * any channel for a while): the wait fails, and once the primary would accept the
	 * subscription again, nothing subscribes the channel that nobody waits for.
	 */
	@Test
	void refusedSubscriptionLeavesNoSubscriptionBehind() {
		String name = "refused";
		RedisServer primary = this.locks.primaryOf(name);
		try (LockHandle held = this.otherNode.lock(name); RedisCli cli = primary.cli()) {
			cli.command("ACL", "SETUSER", "default", "resetchannels");
			try {
				assertThatExceptionOfType(LockAccessException.class)
					.isThrownBy(() -> this.template.lock(LockRequest.of(name).waitTime(Duration.ofSeconds(5))))
					.withMessageContaining("'" + name + "'");
			}
			finally {
				cli.command("ACL", "SETUSER", "default", "allchannels");
			}
			await().during(SUBSCRIPTION_LINGER.multipliedBy(3))
				.atMost(SUBSCRIPTION_LINGER.multipliedBy(6))
				.untilAsserted(() -> assertThat(List.of(subscribers(cli, ClusterLocks.releaseChannel(name)),
						(long) this.locks.diagnostics(this.template).subscribedChannelCount()))
					.as("subscribers on the primary, channels in the engine")
					.containsExactly(0L, 0L));
			assertThat(this.locks.diagnostics(this.template).subscriptionStatus())
				.isNotEqualTo(SubscriptionStatus.DISCONNECTED);
		}
	}

	/**
	 * The primary ends the subscription connection while waiters of two locks in
	 * different slots of it wait. Lettuce subscribes all of that node's channels again
	 * with one {@code SSUBSCRIBE}, which Redis refuses across slots ({@code CROSSSLOT}):
	 * the engine must subscribe each channel again by itself, so that a release wakes its
	 * waiter rather than the end of the holder's lease.
	 */
	@Test
	void waitersAreWokenByReleasesAfterTheirPrimaryEndedTheSubscriptionConnection() throws Exception {
		List<String> names = twoSlotsOfOnePrimary();
		RedisServer primary = this.locks.primaryOf(names.get(0));
		ExecutorService executor = ClusterLocks.executor("sharded-resubscribe-" + System.nanoTime() + "-");
		List<LockHandle> held = new ArrayList<>();
		try (RedisCli cli = primary.cli()) {
			for (String name : names) {
				held.add(this.otherNode.lock(LockRequest.of(name).leaseTime(Duration.ofSeconds(60))));
			}
			List<Future<Boolean>> waiters = new ArrayList<>();
			for (String name : names) {
				waiters.add(executor.submit(() -> {
					try (LockHandle handle = this.template
						.lock(LockRequest.of(name).waitTime(Duration.ofSeconds(30)))) {
						return handle.isHeld();
					}
				}));
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> names.stream()
					.allMatch((name) -> subscribers(cli, ClusterLocks.releaseChannel(name)) == 1));
			cli.command("CLIENT", "KILL", "TYPE", "pubsub");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> names.stream()
					.allMatch((name) -> subscribers(cli, ClusterLocks.releaseChannel(name)) == 1));
			held.forEach(LockHandle::close);
			for (Future<Boolean> waiter : waiters) {
				// Well before the holders' 60 s leases could have ended.
				assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			held.forEach(LockHandle::close);
			executor.shutdownNow();
		}
	}

	/** Two lock names in different slots that one primary serves. */
	private static List<String> twoSlotsOfOnePrimary() {
		String first = "resubscribe-0";
		RedisServer primary = topology.servers().primaryForSlot(ClusterLocks.slotOf(first));
		for (int i = 1;; i++) {
			String name = "resubscribe-" + i;
			if (ClusterLocks.slotOf(name) != ClusterLocks.slotOf(first)
					&& topology.servers().primaryForSlot(ClusterLocks.slotOf(name)).equals(primary)) {
				return List.of(first, name);
			}
		}
	}

	private static long subscribers(RedisCli cli, String channel) {
		List<?> reply = (List<?>) cli.command("PUBSUB", "SHARDNUMSUB", channel);
		return (Long) reply.get(1);
	}

}
