package io.github.redislock.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockNotReplicatedException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.ClusterLocks;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The lock's contract on a Redis Cluster of three primaries and three replicas, reached
 * through Spring Data Redis' cluster configuration: exclusion between two nodes,
 * reentrancy, owner-only release, waiters woken by release messages, fixed and renewed
 * leases, lock loss and fencing tokens. Each test uses one lock on each primary, so each
 * behaviour is shown for every primary and for release messages that must cross the
 * cluster bus to reach the subscribed node.
 */
class ClusterLockTests {

	/**
	 * Watchdog lease of these tests: a renewal may come 2 s late (as late as the command
	 * timeout allows) before the lease runs out.
	 */
	private static final Duration LEASE = Duration.ofMillis(2500);

	private static final Duration RENEW_INTERVAL = Duration.ofMillis(500);

	/**
	 * A lease long enough that a loss seen within a few seconds was seen by a renewal,
	 * not by the lease running out in this JVM.
	 */
	private static final Duration LONG_LEASE = Duration.ofSeconds(10);

	/** Time allowed on top of a computed bound, for scheduling on a busy machine. */
	private static final Duration MARGIN = Duration.ofSeconds(1);

	private static final String PREFIX = LockOptions.DEFAULT_KEY_PREFIX;

	private static RedisCluster cluster;

	/** One lock name per primary. */
	private static List<String> names;

	private ClusterLocks locks;

	private LockTemplate template;

	private LockTemplate otherNode;

	private final String waiterThreads = "cluster-lock-tests-" + System.nanoTime() + "-";

	private final ExecutorService executor = ClusterLocks.executor(this.waiterThreads);

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
		names = ClusterLocks.namesOnEveryPrimary(cluster, "order", 1);
	}

	@AfterAll
	static void closeCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void setUp() {
		this.locks = new ClusterLocks(cluster);
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
	@Test
	void lockNamesOfTheseTestsHitEveryPrimary() {
		List<LockHandle> handles = names.stream().map(this.template::lock).toList();
		try {
			Map<RedisServer, Set<String>> tagsByPrimary = new HashMap<>();
			for (RedisServer primary : cluster.primaries()) {
				try (RedisCli cli = primary.cli()) {
					for (String key : cli.keys(PREFIX + "*")) {
						tagsByPrimary.computeIfAbsent(primary, (server) -> new HashSet<>()).add(hashTag(key));
					}
				}
			}
			assertThat(tagsByPrimary.keySet()).containsExactlyInAnyOrderElementsOf(cluster.primaries());
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
	 * can touch them all: a held exclusive lock with a refused contender, and a held read
	 * lock of the same name.
	 */
	@Test
	void everyKeyOfALockLivesInTheSlotOfItsName() {
		for (String name : names) {
			this.locks.flush();
			int slot = ClusterLocks.slotOf(name);
			RedisServer primary = this.locks.primaryOf(name);
			try (LockHandle exclusive = this.template.lock(name);
					LockHandle read = this.template.lock(LockRequest.read(name))) {
				assertThat(this.otherNode.tryLock(name, Duration.ZERO)).as(name).isEmpty();
				Map<String, RedisServer> keys = new HashMap<>();
				for (RedisServer node : cluster.primaries()) {
					try (RedisCli cli = node.cli()) {
						cli.keys("*").forEach((key) -> keys.put(key, node));
					}
				}
				assertThat(keys).as(name)
					.containsKeys(ClusterLocks.lockKey(name), ClusterLocks.fenceKey(name))
					.hasSizeGreaterThanOrEqualTo(4);
				try (RedisCli cli = primary.cli()) {
					for (Map.Entry<String, RedisServer> key : keys.entrySet()) {
						assertThat(key.getValue()).as(key.getKey()).isEqualTo(primary);
						assertThat(cli.command("CLUSTER", "KEYSLOT", key.getKey())).as(key.getKey())
							.isEqualTo((long) slot);
					}
					assertThat(cli.get(ClusterLocks.fenceKey(name)))
						.isEqualTo(Long.toString(Math.max(exclusive.fencingToken(), read.fencingToken())));
				}
			}
		}
	}

	/** A held lock excludes the other node and other threads of its own node. */
	@Test
	void heldLockExcludesTheOtherNodeAndOtherThreads() throws Exception {
		for (String name : names) {
			try (LockHandle handle = this.template.lock(name)) {
				assertThat(this.otherNode.tryLock(name, Duration.ZERO)).as(name).isEmpty();
				Optional<LockHandle> fromOtherThread = CompletableFuture
					.supplyAsync(() -> this.template.tryLock(name, Duration.ZERO), this.executor)
					.get(5, TimeUnit.SECONDS);
				assertThat(fromOtherThread).isEmpty();
				assertThat(handle.isHeld()).isTrue();
			}
			Optional<LockHandle> afterRelease = this.otherNode.tryLock(name, Duration.ZERO);
			assertThat(afterRelease).as(name).isPresent();
			afterRelease.get().close();
		}
	}

	/** A reentrant acquisition shares the grant; only the outermost close releases it. */
	@Test
	void reentrantLockIsReleasedInRedisOnlyByTheOutermostClose() {
		for (String name : names) {
			LockHandle outer = this.template.lock(name);
			LockHandle inner = this.template.lock(name);
			assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			inner.close();
			assertThat(inner.isHeld()).isFalse();
			assertThat(outer.isHeld()).isTrue();
			assertThat(this.otherNode.tryLock(name, Duration.ZERO)).as(name).isEmpty();
			outer.close();
			Optional<LockHandle> afterRelease = this.otherNode.tryLock(name, Duration.ZERO);
			assertThat(afterRelease).as(name).isPresent();
			afterRelease.get().close();
		}
	}

	/**
	 * A holder whose lock was taken over cannot release the new holder's lock: its close
	 * reports the loss and the other node keeps the lock.
	 */
	@Test
	void closingAHandleWhoseLockWasTakenOverLeavesTheNewHolderAlone() {
		for (String name : names) {
			LockHandle mine = this.template.lock(name);
			try (RedisCli cli = this.locks.primaryOf(name).cli()) {
				cli.command("DEL", ClusterLocks.lockKey(name));
				LockHandle theirs = this.otherNode.lock(name);
				String theirOwner = cli.get(ClusterLocks.lockKey(name));
				assertThatExceptionOfType(LockLostException.class).isThrownBy(mine::close)
					.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo(name));
				assertThat(theirs.isHeld()).isTrue();
				assertThat(cli.get(ClusterLocks.lockKey(name))).as(name).isNotNull().isEqualTo(theirOwner);
				theirs.close();
				assertThat(cli.get(ClusterLocks.lockKey(name))).isNull();
			}
		}
	}

	/**
	 * Waiters on the other node sleep on a subscription that a release on any primary
	 * reaches (sharded on the lock's primary, or plain anywhere and carried by the
	 * cluster bus): each is woken well within a second or two, when the holder's 30 s
	 * lease would have kept it asleep for its whole 20 s wait.
	 */
	@Test
	void waitersOnTheOtherNodeAreWokenByReleaseMessagesFromEveryPrimary() throws Exception {
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
			assertThat(waiters.get(i)).as(names.get(i)).isNotDone();
			long releasedAt = System.nanoTime();
			held.get(i).close();
			LockHandle granted = waiters.get(i).get(5, TimeUnit.SECONDS);
			assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as(names.get(i))
				.isLessThan(Duration.ofSeconds(3));
			assertThat(granted.isHeld()).isTrue();
			assertThat(granted.fencingToken()).isGreaterThan(held.get(i).fencingToken());
			granted.close();
		}
	}

	/** A fixed lease runs out on every primary; the holder learns it lost the lock. */
	@Test
	void fixedLeaseRunsOutAndItsHolderLearnsItWasLost() {
		Duration lease = Duration.ofMillis(400);
		for (String name : names) {
			// The lease starts when Redis runs the acquire, after it was asked for.
			long asked = System.nanoTime();
			LockHandle handle = this.template.lock(LockRequest.of(name).leaseTime(lease));
			assertThat(this.locks.diagnostics(this.template).renewedCount()).isZero();
			try (LockHandle next = this.otherNode.lock(LockRequest.of(name).waitTime(Duration.ofSeconds(10)))) {
				// Not before the lease ran out (less a few milliseconds for Redis'
				// clock),
				// and not long after either: the waiter slept for the lease it was told.
				assertThat(Duration.ofNanos(System.nanoTime() - asked)).as(name)
					.isBetween(lease.minusMillis(10), lease.plus(Duration.ofSeconds(3)));
				assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
			}
			assertThat(handle.isHeld()).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		}
	}

	/** The watchdog renews locks on all three primaries past several of their leases. */
	@Test
	void watchdogKeepsLocksOnEveryPrimaryPastTheirLease() {
		LockTemplate renewing = this.locks.template(LockOptions.defaults().withWatchdog(LEASE, RENEW_INTERVAL));
		List<LockHandle> handles = names.stream().map(renewing::lock).toList();
		List<RedisCli> clis = names.stream().map(this.locks::cliOf).toList();
		List<String> owners = new ArrayList<>();
		for (int i = 0; i < names.size(); i++) {
			owners.add(clis.get(i).get(ClusterLocks.lockKey(names.get(i))));
		}
		// Held by their owners at every check, until two renewals past the first lease: a
		// lock that lapsed once cannot come back with the same owner token.
		Duration past = LEASE.plus(RENEW_INTERVAL.multipliedBy(2));
		await().during(past).atMost(past.plus(MARGIN)).until(() -> {
			for (int i = 0; i < names.size(); i++) {
				if (!handles.get(i).isHeld()
						|| !owners.get(i).equals(clis.get(i).get(ClusterLocks.lockKey(names.get(i))))) {
					return false;
				}
			}
			return true;
		});
		for (int i = 0; i < names.size(); i++) {
			String name = names.get(i);
			assertThat(clis.get(i).pttl(ClusterLocks.lockKey(name))).as(name).isBetween(1L, LEASE.toMillis());
			assertThat(this.otherNode.tryLock(name, Duration.ZERO)).isEmpty();
		}
		assertThat(this.locks.diagnostics(renewing).renewedCount()).isEqualTo(names.size());
		handles.forEach(LockHandle::close);
		assertThat(this.locks.diagnostics(renewing).renewedCount()).isZero();
		for (String name : names) {
			try (RedisCli cli = this.locks.primaryOf(name).cli()) {
				assertThat(cli.get(ClusterLocks.lockKey(name))).isNull();
			}
		}
	}

	/**
	 * A lock whose key is deleted behind its holder's back is found lost by the watchdog
	 * at its next renewal, within a renewal interval and a margin, far sooner than its 10
	 * s lease would run out in this JVM; closing it then throws.
	 */
	@Test
	void holderLearnsOfLossWhenItsKeyIsDeleted() {
		LockTemplate renewing = this.locks.template(LockOptions.defaults().withWatchdog(LONG_LEASE, RENEW_INTERVAL));
		for (String name : names) {
			LockHandle handle = renewing.lock(name);
			try (RedisCli cli = this.locks.primaryOf(name).cli()) {
				assertThat(cli.command("DEL", ClusterLocks.lockKey(name))).isEqualTo(1L);
			}
			await().atMost(RENEW_INTERVAL.plus(MARGIN)).until(() -> !handle.isHeld());
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
				.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(handle.fencingToken()));
			assertThat(this.locks.diagnostics(renewing).renewedCount()).isZero();
		}
	}

	/** Every grant of a lock carries a greater fencing token, whichever node takes it. */
	@Test
	void fencingTokensIncreaseWithEveryGrantAcrossNodes() {
		for (String name : names) {
			long previous = 0;
			for (int i = 0; i < 40; i++) {
				LockTemplate node = (i % 2 == 0) ? this.template : this.otherNode;
				try (LockHandle handle = node.lock(name)) {
					assertThat(handle.fencingToken()).as(name).isGreaterThan(previous);
					previous = handle.fencingToken();
				}
			}
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
		RedisServer replica = cluster.replicasOf(this.locks.primaryOf(stalled)).get(0);
		replica.pause();
		try {
			assertThatExceptionOfType(LockNotReplicatedException.class).isThrownBy(() -> safe.lock(stalled))
				.withMessageContaining(stalled);
			try (RedisCli primary = this.locks.cliOf(stalled)) {
				assertThat(primary.get(ClusterLocks.lockKey(stalled))).as("refused grant left behind").isNull();
			}
			try (LockHandle other = safe.lock(healthy)) {
				assertThat(other.isHeld()).isTrue();
			}
		}
		finally {
			replica.resume();
		}
		cluster.awaitHealthy(Duration.ofSeconds(30));
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
		boolean shardedPubSub = Integer.parseInt(cluster.nodes().get(0).version().split("\\.")[0]) >= 7;
		Map<String, Set<RedisServer>> plain = new HashMap<>();
		Map<String, Set<RedisServer>> sharded = new HashMap<>();
		for (RedisServer node : cluster.nodes()) {
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
