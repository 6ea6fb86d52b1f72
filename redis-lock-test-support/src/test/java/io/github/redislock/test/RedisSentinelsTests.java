package io.github.redislock.test;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisSentinels}.
 */
class RedisSentinelsTests {

	// Usually 5 s; an election with split votes is retried after 2 x failover-timeout
	private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(25);

	// Up to 20 s with Redis 6.2, more on a busy machine
	private static final Duration REJOIN_TIMEOUT = Duration.ofSeconds(60);

	@Test
	void startMonitorsThePrimaryAndItsReplicaWithThreeSentinelsThatKnowEachOther() {
		try (RedisSentinels group = RedisSentinels.start()) {
			RedisServer primary = group.primary();
			RedisServer replica = group.replica();
			assertThat(primary).isNotEqualTo(replica);
			assertThat(group.masterName()).isEqualTo("mymaster");
			assertThat(group.sentinels()).hasSize(3);
			assertThat(group.sentinelAddresses())
				.containsExactlyElementsOf(group.sentinels().stream().map((s) -> "127.0.0.1:" + s.port()).toList());
			for (RedisServer sentinel : group.sentinels()) {
				try (RedisCli cli = sentinel.cli()) {
					assertThat(cli.command("SENTINEL", "get-master-addr-by-name", "mymaster"))
						.isEqualTo(List.of("127.0.0.1", Integer.toString(primary.port())));
					Map<String, String> master = SentinelHealth.fields(cli.command("SENTINEL", "MASTER", "mymaster"));
					assertThat(master).containsEntry("num-slaves", "1")
						.containsEntry("num-other-sentinels", "2")
						.containsEntry("quorum", "2");
				}
			}
			try (RedisCli cli = primary.cli()) {
				cli.set("key", "value");
				assertThat(cli.command("WAIT", "1", "5000")).isEqualTo(1L);
			}
			try (RedisCli cli = replica.cli()) {
				assertThat(cli.get("key")).isEqualTo("value");
			}
		}
	}

	@Test
	void killingThePrimaryMakesTheSentinelsPromoteTheReplica() {
		try (RedisSentinels group = RedisSentinels.start()) {
			RedisServer primary = group.primary();
			RedisServer replica = group.replica();
			primary.kill();
			assertThat(group.awaitFailover(FAILOVER_TIMEOUT)).isEqualTo(replica);
			assertThat(group.primary()).isEqualTo(replica);
			assertThat(group.replica()).isEqualTo(primary);
			try (RedisCli cli = replica.cli()) {
				assertThat(InfoFields.get(cli.info("replication"), "role")).isEqualTo("master");
			}
			primary.restart();
			// The restarted server comes back as an empty primary; a sentinel turns it
			// into a replica once it has seen it report that role for a while: seconds
			// with Redis 7, about 20 with Redis 6.2 sentinels, which cannot be sped up.
			await().atMost(REJOIN_TIMEOUT)
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptionsInstanceOf(UncheckedIOException.class)
				.untilAsserted(() -> assertReplicates(primary, replica));
			assertThat(group.primary()).isEqualTo(replica);
			group.awaitHealthy(REJOIN_TIMEOUT);
			assertReplicates(primary, replica);
		}
	}

	/**
	 * Asserts that a server is a replica of the given primary with its link up. The
	 * sentinels' conversion drops client connections, so a check may fail to connect.
	 */
	private static void assertReplicates(RedisServer server, RedisServer primary) {
		try (RedisCli cli = server.cli()) {
			String replication = cli.info("replication");
			assertThat(InfoFields.get(replication, "role")).as("role of %s", server.port()).isEqualTo("slave");
			assertThat(InfoFields.get(replication, "master_port")).as("primary of %s", server.port())
				.isEqualTo(Integer.toString(primary.port()));
			assertThat(InfoFields.get(replication, "master_link_status")).as("link of %s", server.port())
				.isEqualTo("up");
		}
	}

	@Test
	void closeLeavesNoProcessAndNoWorkingDirectory() {
		RedisSentinels group = RedisSentinels.start();
		List<RedisServer> all = new ArrayList<>(group.sentinels());
		all.add(group.primary());
		all.add(group.replica());
		List<Long> pids = all.stream().map(RedisServer::pid).toList();
		List<Path> directories = new ArrayList<>();
		for (RedisServer sentinel : group.sentinels()) {
			try (RedisCli cli = sentinel.cli()) {
				// Sentinels have no CONFIG command
				directories.add(Path.of(InfoFields.get(cli.info("server"), "config_file")).getParent());
			}
		}
		for (RedisServer server : List.of(group.primary(), group.replica())) {
			try (RedisCli cli = server.cli()) {
				directories.add(Path.of((String) ((List<?>) cli.command("CONFIG", "GET", "dir")).get(1)));
			}
		}
		group.close();
		assertThat(pids).noneMatch(RedisSentinelsTests::isAlive);
		assertThat(directories).noneMatch(Files::exists);
		group.close();
	}

	private static boolean isAlive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

}
