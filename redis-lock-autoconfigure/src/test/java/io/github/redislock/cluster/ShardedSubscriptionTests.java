package io.github.redislock.cluster;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockAccessException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.SubscriptionStatus;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Sharded subscriptions ({@code SSUBSCRIBE}) of waiters on a Redis 7 cluster: a
 * subscription that Redis refuses leaves nothing behind, in the engine or on the server.
 */
class ShardedSubscriptionTests {

	private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(20);

	/** How long a channel stays subscribed after its last waiter left. */
	private static final Duration SUBSCRIPTION_LINGER = Duration.ofSeconds(1);

	private static RedisCluster cluster;

	private ClusterLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
	}

	@AfterAll
	static void closeCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void setUp() {
		assumeThat(Integer.parseInt(cluster.nodes().get(0).version().split("\\.")[0])).as("sharded pub/sub")
			.isGreaterThanOrEqualTo(7);
		cluster.awaitHealthy(HEALTHY_TIMEOUT);
		this.locks = new ClusterLocks(cluster);
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
						(long) this.template.engine().subscribedChannelCount()))
					.as("subscribers on the primary, channels in the engine")
					.containsExactly(0L, 0L));
			assertThat(this.template.engine().subscriptionStatus()).isNotEqualTo(SubscriptionStatus.DISCONNECTED);
		}
	}

	private static long subscribers(RedisCli cli, String channel) {
		List<?> reply = (List<?>) cli.command("PUBSUB", "SHARDNUMSUB", channel);
		return (Long) reply.get(1);
	}

}
