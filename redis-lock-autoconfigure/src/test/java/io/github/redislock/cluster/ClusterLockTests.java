package io.github.redislock.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.assertj.core.api.Condition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotReplicatedException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.ClusterLocks;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What only a Redis Cluster shows: the lock names of the tests hit every primary, every
 * key of a lock lives in the slot of its name, release channels are subscribed where
 * releases from every primary reach them, and {@code minReplicas} waits for the replica
 * of the lock's own primary. The lock's contract itself runs on the cluster in
 * {@code ClusterLockContractTests}.
 */
class ClusterLockTests {

	private static final String PREFIX = LockOptions.DEFAULT_KEY_PREFIX;

	@RegisterExtension
	static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();

	/** One lock name per primary. */
	private static List<String> names;

	private ClusterLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	private final String waiterThreads = "cluster-lock-tests-" + System.nanoTime() + "-";

	private final ExecutorService executor = ClusterLocks.executor(this.waiterThreads);

	@BeforeAll
	static void findNamesOnEveryPrimary() {
		names = ClusterLocks.namesOnEveryPrimary(topology.servers(), "order", 1);
	}

	@BeforeEach
	void setUp() {
		this.locks = topology.fixture();
		this.locks.flush();
		this.template = this.locks.template();
		this.otherNode = this.locks.template();
	}

	@AfterEach
	void tearDown() throws Exception {
		this.executor.shutdownNow();
		this.executor.awaitTermination(10, TimeUnit.SECONDS);
		this.locks.close();
	}

	/**
	 * The names the other tests use hit all three primaries: with one lock held per name,
	 * every primary stores the lock key of one of them, as the engine named it.
	 */
	/**
	 * The names the contract takes several locks under ({@code ClusterLocks#names}) hit
	 * all three primaries, each on a slot of its own.
	 */
	@Test
	void namesOfTheContractHitEveryPrimaryOnSlotsOfTheirOwn() {
		List<String> hot = this.locks.names("hot", 2);
		assertThat(new HashSet<>(hot.stream().map(this.locks::primaryOf).toList())).hasSize(3)
			.containsExactlyInAnyOrderElementsOf(topology.servers().primaries());
		assertThat(hot.stream().map(ClusterLocks::slotOf).distinct()).hasSize(hot.size());
	}

	@Test
	void lockNamesOfTheseTestsHitEveryPrimary() {
		List<LockHandle> handles = names.stream().map(this.template::lock).toList();
		try {
			Map<RedisServer, Set<String>> tagsByPrimary = new HashMap<>();
			for (RedisServer primary : topology.servers().primaries()) {
				try (RedisCli cli = primary.cli()) {
					for (String key : cli.keys(PREFIX + "*")) {
						tagsByPrimary.computeIfAbsent(primary, (server) -> new HashSet<>()).add(hashTag(key));
					}
				}
			}
			assertThat(tagsByPrimary.keySet()).containsExactlyInAnyOrderElementsOf(topology.servers().primaries());
			assertThat(tagsByPrimary.values()).allSatisfy((tags) -> assertThat(tags).hasSize(1));
			assertThat(tagsByPrimary.values().stream().flatMap(Set::stream)).containsExactlyInAnyOrderElementsOf(names);
		}
		finally {
			handles.forEach(LockHandle::close);
		}
	}

	/**
	 * Every key the engine writes for a lock, found by listing the keys of every primary
	 * rather than named by the test, lies in the slot of the lock's name, so one script
	 * can touch them all: a held exclusive lock with a refused contender, granted over
	 * the tombstone of another node's release (whose release mark the grant keeps), and a
	 * held read lock of the same name.
	 */
	@Test
	void everyKeyOfALockLivesInTheSlotOfItsName() {
		for (String name : names) {
			this.locks.flush();
			int slot = ClusterLocks.slotOf(name);
			RedisServer primary = this.locks.primaryOf(name);
			this.otherNode.lock(name).close();
			try (LockHandle exclusive = this.template.lock(name);
					LockHandle read = this.template.lock(LockRequest.read(name))) {
				assertThat(this.otherNode.tryLock(name, Duration.ZERO)).as(name).isEmpty();
				Map<String, RedisServer> keys = new HashMap<>();
				for (RedisServer node : topology.servers().primaries()) {
					try (RedisCli cli = node.cli()) {
						cli.keys("*").forEach((key) -> keys.put(key, node));
					}
				}
				assertThat(keys).as(name)
					.containsKeys(ClusterLocks.lockKey(name), ClusterLocks.fenceKey(name))
					.hasSizeGreaterThanOrEqualTo(4)
					.hasKeySatisfying(new Condition<>(
							(key) -> key.startsWith(ClusterLocks.lockKey(name) + ":released:"), "a release mark"));
				try (RedisCli cli = primary.cli()) {
					for (Map.Entry<String, RedisServer> key : keys.entrySet()) {
						assertThat(key.getValue()).as(key.getKey()).isEqualTo(primary);
						assertThat(cli.command("CLUSTER", "KEYSLOT", key.getKey())).as(key.getKey())
							.isEqualTo((long) slot);
					}
					// The exclusive lock keeps its token in its lock key, the read lock
					// in the
					// fence key.
					assertThat(LockKeyValues.token(cli.get(ClusterLocks.lockKey(name))))
						.isEqualTo(exclusive.fencingToken());
					assertThat(cli.get(ClusterLocks.fenceKey(name))).isEqualTo(Long.toString(read.fencingToken()));
				}
			}
		}
	}

	/**
	 * Waiters on the other node sleep on a subscription that a release on any primary
	 * reaches: sharded on the lock's primary, or plain anywhere and carried by the
	 * cluster bus. That they are woken by the release, long before the holder's lease
	 * ends, the contract shows on the cluster
	 * ({@code LockWaitingContract.waiterIsWokenByReleaseLongBeforeTheHoldersLeaseEnds});
	 * this test shows where the subscriptions are.
	 */
	@Test
	void waitersOnTheOtherNodeSubscribeWhereReleasesFromEveryPrimaryReachThem() throws Exception {
		List<LockHandle> held = new ArrayList<>();
		List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
		for (String name : names) {
			held.add(this.template.lock(name));
			LockRequest request = LockRequest.of(name).waitTime(Duration.ofSeconds(20));
			waiters.add(CompletableFuture.supplyAsync(() -> this.otherNode.lock(request), this.executor));
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.locks.diagnostics(this.otherNode).subscribedChannelCount() == names.size()
					&& this.locks.diagnostics(this.otherNode).sleepingWaiterCount() == names.size());
		assertReleaseChannelsAreSubscribedWhereReleasesReachThem(names);
		for (int i = 0; i < names.size(); i++) {
			held.get(i).close();
			waiters.get(i).get(20, TimeUnit.SECONDS).close();
		}
	}

	/**
	 * With {@code minReplicas}, the {@code WAIT} after a grant goes to the primary that
	 * made it, on the connection that sent it: a grant on a primary whose replica is
	 * stalled is refused and released, while a grant on another primary, whose replica
	 * answers, is not. A {@code WAIT} sent anywhere else would count no pending write and
	 * let the first grant through.
	 */
	@Test
	void minReplicasWaitsForTheReplicaOfTheLocksOwnPrimary() {
		LockTemplate safe = this.locks
			.template(LockOptions.defaults().withMinReplicas(1, ClusterLocks.COMMAND_TIMEOUT.dividedBy(2)));
		String stalled = names.get(0);
		String healthy = names.get(1);
		try (LockHandle warm = safe.lock(stalled)) {
			assertThat(warm.isHeld()).isTrue();
		}
		RedisServer replica = topology.servers().replicasOf(this.locks.primaryOf(stalled)).get(0);
		replica.pause();
		try {
			assertThatExceptionOfType(LockNotReplicatedException.class).isThrownBy(() -> safe.lock(stalled))
				.withMessageContaining(stalled);
			try (RedisCli primary = this.locks.cliOf(stalled)) {
				assertThat(LockKeyValues.holder(primary, ClusterLocks.lockKey(stalled))).as("refused grant left behind")
					.isNull();
			}
			try (LockHandle other = safe.lock(healthy)) {
				assertThat(other.isHeld()).isTrue();
			}
		}
		finally {
			replica.resume();
		}
		topology.servers().awaitHealthy(Duration.ofSeconds(30));
		try (LockHandle again = safe.lock(stalled)) {
			assertThat(again.isHeld()).isTrue();
		}
	}

	/**
	 * Asserts where the waiters' release channels are subscribed: on Redis 7 with sharded
	 * pub/sub, each on the primary that serves its lock, the only node its release is
	 * published on; before Redis 7 with plain pub/sub, all of them on one node, which is
	 * not the primary of every lock, so that some releases must cross the cluster bus to
	 * wake their waiter.
	 */
	private void assertReleaseChannelsAreSubscribedWhereReleasesReachThem(List<String> names) {
		boolean shardedPubSub = Integer.parseInt(topology.servers().nodes().get(0).version().split("\\.")[0]) >= 7;
		Map<String, Set<RedisServer>> plain = new HashMap<>();
		Map<String, Set<RedisServer>> sharded = new HashMap<>();
		for (RedisServer node : topology.servers().nodes()) {
			try (RedisCli cli = node.cli()) {
				for (String name : names) {
					String channel = ClusterLocks.releaseChannel(name);
					if (subscribers(cli, "NUMSUB", channel) > 0) {
						plain.computeIfAbsent(name, (key) -> new HashSet<>()).add(node);
					}
					if (shardedPubSub && subscribers(cli, "SHARDNUMSUB", channel) > 0) {
						sharded.computeIfAbsent(name, (key) -> new HashSet<>()).add(node);
					}
				}
			}
		}
		if (shardedPubSub) {
			assertThat(plain).as("channels subscribed with plain pub/sub on Redis 7").isEmpty();
			for (String name : names) {
				assertThat(sharded.get(name)).as("nodes where %s is subscribed", name)
					.containsExactly(this.locks.primaryOf(name));
			}
			return;
		}
		Set<RedisServer> subscribed = new HashSet<>();
		for (String name : names) {
			assertThat(plain.get(name)).as("nodes where %s is subscribed", name).hasSize(1);
			subscribed.addAll(plain.get(name));
		}
		assertThat(subscribed).as("nodes holding the subscription").hasSize(1);
		assertThat(names).as("locks whose primary is not the subscribed node")
			.anyMatch((name) -> !subscribed.contains(this.locks.primaryOf(name)));
	}

	/** The lock name inside the hash tag of one of its keys. */
	private static String hashTag(String key) {
		return key.substring(key.indexOf('{') + 1, key.indexOf('}'));
	}

	private static long subscribers(RedisCli cli, String subcommand, String channel) {
		List<?> reply = (List<?>) cli.command("PUBSUB", subcommand, channel);
		return (Long) reply.get(1);
	}

}
