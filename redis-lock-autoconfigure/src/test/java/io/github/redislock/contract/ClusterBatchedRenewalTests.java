package io.github.redislock.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

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
 * Renewals in chunks ({@link BatchedRenewalTests}) on a Redis Cluster of three primaries
 * and three replicas. A script may only touch the keys of one slot, and each lock name is
 * a slot's hash tag, so the names are chosen in a few slots, one on each primary: locks
 * spread over all 16,384 slots share a call only when more of them than that are held.
 */
class ClusterBatchedRenewalTests extends BatchedRenewalTests {

	@RegisterExtension
	static final Topology<RedisCluster> topology = Topology.cluster();

	@Override
	protected LockFixture fixture() {
		return topology.fixture();
	}

	/**
	 * A slot half moved to another primary refuses a script on keys of both halves
	 * ({@code TRYAGAIN}): the leases of such a chunk are renewed alone, each redirected
	 * to wherever its key is, and none is lost however long the slot stays half moved.
	 */
	@Test
	void locksOfASlotHalfMovedAreRenewedAloneAndNoneIsLost() throws Exception {
		CountingObserver observer = new CountingObserver();
		LockTemplate template = locks().template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL), observer);
		List<String> names = names("moving", 200, 1);
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
			Duration halfMoved = LEASE.plus(RENEW_INTERVAL);
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

	/** Names in three slots, one served by each primary. */
	@Override
	protected List<String> names(String stem, int count) {
		return names(stem, count, 3);
	}

	/** Names in the given number of slots, on different primaries while there are. */
	private static List<String> names(String stem, int count, int slotCount) {
		Set<Integer> slots = ClusterLocks.namesOnEveryPrimary(topology.servers(), stem + "-slot", 1)
			.stream()
			.map(ClusterLocks::slotOf)
			.limit(slotCount)
			.collect(Collectors.toSet());
		List<String> names = new ArrayList<>(count);
		for (int i = 0; names.size() < count; i++) {
			String name = stem + "-" + i;
			if (slots.contains(ClusterLocks.slotOf(name))) {
				names.add(name);
			}
		}
		return names;
	}

}
