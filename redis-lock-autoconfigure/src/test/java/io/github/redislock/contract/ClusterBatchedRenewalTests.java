package io.github.redislock.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redislock.test.RedisCluster;

/**
 * Renewals in chunks ({@link BatchedRenewalTests}) on a Redis Cluster of three primaries
 * and three replicas. A script may only touch the keys of one slot, and each lock name is
 * a slot's hash tag, so the names are chosen in a few slots, one on each primary: locks
 * spread over all 16,384 slots share a call only when more of them than that are held.
 */
class ClusterBatchedRenewalTests extends BatchedRenewalTests {

	private static RedisCluster cluster;

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

	@Override
	protected LockFixture fixture() {
		return new ClusterLocks(cluster);
	}

	/** Names in three slots, one served by each primary. */
	@Override
	protected List<String> names(String stem, int count) {
		Set<Integer> slots = ClusterLocks.namesOnEveryPrimary(cluster, stem + "-slot", 1)
			.stream()
			.map(ClusterLocks::slotOf)
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
