package io.github.redislock.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisCluster}. One cluster serves the class: each test brings it back
 * to healthy first, and asserts against the topology it finds rather than the initial
 * one.
 */
class RedisClusterTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

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

	@BeforeEach
	void bringEveryNodeBack() {
		for (RedisServer node : cluster.nodes()) {
			node.resume();
			if (!node.isRunning()) {
				node.restart();
			}
		}
		cluster.awaitHealthy(TIMEOUT);
	}

	@Test
	void startFormsThreePrimariesWithOneReplicaEachThatAllReportOk() {
		assertThat(cluster.nodes()).hasSize(6);
		assertThat(cluster.primaries()).hasSize(3);
		assertThat(cluster.replicas()).hasSize(3).doesNotContainAnyElementsOf(cluster.primaries());
		for (RedisServer primary : cluster.primaries()) {
			assertThat(cluster.replicasOf(primary)).hasSize(1);
		}
		for (RedisServer node : cluster.nodes()) {
			try (RedisCli cli = node.cli()) {
				String info = (String) cli.command("CLUSTER", "INFO");
				assertThat(InfoFields.get(info, "cluster_state")).isEqualTo("ok");
				assertThat(InfoFields.get(info, "cluster_slots_assigned")).isEqualTo("16384");
				assertThat(InfoFields.get(info, "cluster_known_nodes")).isEqualTo("6");
				assertThat(InfoFields.get(info, "cluster_size")).isEqualTo("3");
			}
		}
		assertThat(cluster.seeds()).hasSize(6).allMatch((seed) -> seed.matches("127\\.0\\.0\\.1:\\d+"));
	}

	@Test
	void primariesShareTheSlotsEvenly() {
		List<RedisServer> primaries = cluster.primaries();
		assertThat(cluster.primaryForSlot(0)).isEqualTo(primaries.get(0));
		assertThat(cluster.primaryForSlot(16383)).isEqualTo(primaries.get(2));
		assertThat(List.of(cluster.primaryForSlot(0), cluster.primaryForSlot(8000), cluster.primaryForSlot(16383)))
			.doesNotHaveDuplicates();
		assertThatIllegalArgumentException().isThrownBy(() -> cluster.primaryForSlot(16384));
	}

	@Test
	void keysWithTheSameHashTagShareASlot() {
		assertThat(RedisCluster.slot("{user}:a")).isEqualTo(RedisCluster.slot("{user}:b"))
			.isEqualTo(RedisCluster.slot("user"));
		assertThat(RedisCluster.slot("foo")).isEqualTo(12182);
		assertThat(RedisCluster.slot("123456789")).isEqualTo(0x31C3);
	}

	@Test
	void slotAgreesWithClusterKeyslot() {
		List<String> keys = List.of("", "a", "foo", "{user}:a", "lock:{order-42}", "{}", "{}:x", "foo{}{bar}",
				"foo{{bar}}zap", "foo{bar}{zap}", "{a", "a}b{", "}{x}", "{user1000}.following", "clé:{é}");
		try (RedisCli cli = cluster.nodes().get(0).cli()) {
			for (String key : keys) {
				assertThat(RedisCluster.slot(key)).as(key)
					.isEqualTo(((Long) cli.command("CLUSTER", "KEYSLOT", key)).intValue());
			}
		}
	}

	@Test
	void keyWrittenThroughItsPrimaryIsReadableOnItsReplica() {
		String key = "{replicated}:key";
		RedisServer primary = cluster.primaryForSlot(RedisCluster.slot(key));
		RedisServer replica = cluster.replicasOf(primary).get(0);
		try (RedisCli cli = primary.cli()) {
			cli.set(key, "value");
			assertThat(cli.command("WAIT", "1", "5000")).isEqualTo(1L);
		}
		try (RedisCli cli = replica.cli()) {
			assertThatExceptionOfType(RedisErrorReplyException.class).isThrownBy(() -> cli.get(key))
				.satisfies((ex) -> assertThat(ex.getError()).startsWith("MOVED"));
			cli.command("READONLY");
			assertThat(cli.get(key)).isEqualTo("value");
		}
	}

	@Test
	void failoverMakesTheReplicaThePrimaryOfItsSlots() {
		String key = "{failover}:key";
		int slot = RedisCluster.slot(key);
		RedisServer primary = cluster.primaryForSlot(slot);
		RedisServer replica = cluster.replicasOf(primary).get(0);
		try (RedisCli cli = primary.cli()) {
			cli.set(key, "value");
		}
		cluster.failover(replica);
		assertThat(cluster.primaryForSlot(slot)).isEqualTo(replica);
		assertThat(cluster.replicasOf(replica)).containsExactly(primary);
		try (RedisCli cli = replica.cli()) {
			assertThat(cli.get(key)).isEqualTo("value");
		}
		assertThatIllegalArgumentException().isThrownBy(() -> cluster.failover(replica))
			.withMessageContaining("is not a replica");
	}

	@Test
	void failoverHealsAMigrationLeftHalfOpenOnAnotherPrimary() {
		int slot = RedisCluster.slot("{half-open}");
		RedisServer primary = cluster.primaryForSlot(slot);
		RedisServer replica = cluster.replicasOf(primary).get(0);
		RedisServer other = cluster.primaries().stream().filter((node) -> !node.equals(primary)).findFirst().get();
		String primaryId;
		try (RedisCli cli = primary.cli()) {
			primaryId = ClusterNodes.of(cli).myself().id();
		}
		// A move begun and abandoned before the primary migrated anything: once the
		// primary fails over, the importing node ignores the slot's new owner and sees
		// the slot served by nobody.
		try (RedisCli cli = other.cli()) {
			cli.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", primaryId);
		}
		cluster.failover(replica);
		assertThat(cluster.primaryForSlot(slot)).isEqualTo(replica);
		try (RedisCli cli = other.cli()) {
			assertThat(ClusterNodes.of(cli).myself().openSlots()).isEmpty();
			assertThat(InfoFields.get((String) cli.command("CLUSTER", "INFO"), "cluster_state")).isEqualTo("ok");
			assertThat(ClusterNodes.of(cli).ownerOf(slot).map(ClusterNodes.Node::port)).contains(replica.port());
		}
	}

	@Test
	void killedPrimaryIsReplacedByItsReplicaAndRejoinsAsReplicaWhenRestarted() {
		int slot = RedisCluster.slot("{killed}");
		RedisServer primary = cluster.primaryForSlot(slot);
		RedisServer replica = cluster.replicasOf(primary).get(0);
		primary.kill();
		await().atMost(TIMEOUT).ignoreExceptions().until(() -> cluster.primaryForSlot(slot).equals(replica));
		cluster.awaitHealthy(TIMEOUT);
		primary.restart();
		// The restarted node rejoins with its old view, as the primary of slots it lost;
		// the others' newer claims turn it into a replica of its successor, and a health
		// check may pass before every node has heard of that. Wait for what is asserted.
		await().atMost(TIMEOUT)
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(cluster.replicasOf(replica)).containsExactly(primary));
		cluster.awaitHealthy(TIMEOUT);
		assertThat(cluster.replicasOf(replica)).containsExactly(primary);
	}

	@Test
	void moveSlotMovesTheSlotWithItsKeys() {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 250; i++) {
			keys.add("{moved}:" + i);
		}
		int slot = RedisCluster.slot(keys.get(0));
		RedisServer source = cluster.primaryForSlot(slot);
		try (RedisCli cli = source.cli()) {
			keys.forEach((key) -> cli.set(key, key));
		}
		RedisServer target = cluster.primaries().stream().filter((node) -> !node.equals(source)).findFirst().get();
		cluster.moveSlot(slot, target);
		assertThat(cluster.primaryForSlot(slot)).isEqualTo(target);
		try (RedisCli cli = target.cli()) {
			assertThat(cli.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot))).isEqualTo(250L);
			assertThat(cli.get(keys.get(249))).isEqualTo(keys.get(249));
		}
		try (RedisCli cli = source.cli()) {
			assertThatExceptionOfType(RedisErrorReplyException.class).isThrownBy(() -> cli.get(keys.get(0)))
				.satisfies(
						(ex) -> assertThat(ex.getError()).isEqualTo("MOVED " + slot + " 127.0.0.1:" + target.port()));
		}
		assertThatIllegalArgumentException().isThrownBy(() -> cluster.moveSlot(slot, cluster.replicasOf(target).get(0)))
			.withMessageContaining("is not a primary");
		// Back where it was, for the tests that expect even ranges
		cluster.moveSlot(slot, source);
		assertThat(cluster.primaryForSlot(slot)).isEqualTo(source);
		try (RedisCli cli = source.cli()) {
			assertThat(cli.get(keys.get(0))).isEqualTo(keys.get(0));
		}
	}

	@Test
	void closeLeavesNoProcessAndNoWorkingDirectory() {
		RedisCluster other = RedisCluster.start();
		List<Long> pids = other.nodes().stream().map(RedisServer::pid).toList();
		List<Path> directories = new ArrayList<>();
		for (RedisServer node : other.nodes()) {
			try (RedisCli cli = node.cli()) {
				directories.add(Path.of((String) ((List<?>) cli.command("CONFIG", "GET", "dir")).get(1)));
			}
		}
		other.close();
		assertThat(pids).noneMatch(RedisClusterTests::isAlive);
		assertThat(directories).noneMatch(Files::exists);
		assertThat(other.nodes()).noneMatch(RedisServer::isRunning);
		other.close();
	}

	private static boolean isAlive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

}
