package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Renewals in chunks ({@link BatchedRenewalContract}) while a slot is half moved between
 * two primaries of a Redis Cluster, which only a cluster has: the test moves one slot of
 * the class's cluster and puts it back whole after.
 */
class HalfMovedSlotRenewalTests {

	@RegisterExtension
	static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();

	private LockFixture locks;

	@BeforeEach
	void createFixture() {
		this.locks = topology.fixture();
	}

	@AfterEach
	void closeFixture() throws Exception {
		this.locks.close();
	}

	@Test
	void locksOfASlotHalfMovedAreRenewedAloneAndNoneIsLost() throws Exception {
		CountingObserver observer = new CountingObserver();
		LockTemplate template = this.locks.template(LockOptions.defaults()
			.withWatchdog(BatchedRenewalContract.LEASE, BatchedRenewalContract.RENEW_INTERVAL), observer);
		List<String> names = ClusterLocks.namesInSlots(topology.servers(), "moving", 200, 1);
		List<LockHandle> handles = names.stream().map(template::lock).toList();
		int slot = ClusterLocks.slotOf(names.get(0));
		RedisServer source = topology.servers().primaryForSlot(slot);
		RedisServer target = topology.servers()
			.primaries()
			.stream()
			.filter((primary) -> primary.port() != source.port())
			.findFirst()
			.orElseThrow();
		String slotText = Integer.toString(slot);
		try (RedisCli sourceCli = source.cli(); RedisCli targetCli = target.cli()) {
			String sourceId = (String) sourceCli.command("CLUSTER", "MYID");
			String targetId = (String) targetCli.command("CLUSTER", "MYID");
			targetCli.command("CLUSTER", "SETSLOT", slotText, "IMPORTING", sourceId);
			sourceCli.command("CLUSTER", "SETSLOT", slotText, "MIGRATING", targetId);
			List<String> migrate = new ArrayList<>(List.of("MIGRATE", target.host(), Integer.toString(target.port()),
					"", "0", "5000", "REPLACE", "KEYS"));
			for (int i = 0; i < names.size(); i += 2) {
				migrate.add(LockFixture.lockKey(names.get(i)));
			}
			sourceCli.command(migrate.toArray(String[]::new));
			Map<String, Integer> renewalsBefore = new HashMap<>();
			names.forEach((name) -> renewalsBefore.put(name, observer.renewals(name)));
			// Half moved for longer than a lease: a chunk of both halves is refused all
			// along, and a lease not renewed on its own would run out.
			Duration halfMoved = BatchedRenewalContract.LEASE.plus(BatchedRenewalContract.RENEW_INTERVAL);
			await().during(halfMoved)
				.atMost(halfMoved.plus(Duration.ofSeconds(2)))
				.until(() -> handles.stream().allMatch(LockHandle::isHeld));
			assertThat(sourceCli.info("errorstats")).as("chunks refused while the slot was half moved")
				.contains("errorstat_TRYAGAIN");
			for (String name : names) {
				assertThat(observer.losses(name)).as("losses of " + name).isZero();
				// Each renewal Redis answered 1 to: the lock was held in Redis.
				assertThat(observer.renewals(name) - renewalsBefore.get(name)).as("renewals of " + name)
					.isGreaterThanOrEqualTo(2);
			}
		}
		finally {
			// Done either way, so that the cluster is whole for the other tests.
			topology.servers().moveSlot(slot, target);
		}
		template.shutdown(Duration.ZERO);
	}

}
