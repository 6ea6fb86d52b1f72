package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link RedisServer}.
 */
class RedisServerTests {

	@Test
	void startAnswersPingOnAFreeLoopbackPort() {
		try (RedisServer server = RedisServer.start(); RedisCli cli = server.cli()) {
			assertThat(server.host()).isEqualTo("127.0.0.1");
			assertThat(server.port()).isPositive().isNotEqualTo(6379);
			assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
			assertThat(server.isRunning()).isTrue();
			assertThat(cli.ping()).isEqualTo("PONG");
			assertThat(InfoFields.get(cli.info("server"), "process_id")).isEqualTo(Long.toString(server.pid()));
		}
	}

	@Test
	void twoServersGetDifferentPorts() {
		try (RedisServer first = RedisServer.start(); RedisServer second = RedisServer.start()) {
			assertThat(first.port()).isNotEqualTo(second.port());
			assertThat(first.pid()).isNotEqualTo(second.pid());
		}
	}

	@Test
	void versionIsTheOneTheServerReports() {
		try (RedisServer server = RedisServer.start(); RedisCli cli = server.cli()) {
			assertThat(server.version()).matches("\\d+\\.\\d+\\.\\d+")
				.isEqualTo(InfoFields.get(cli.info("server"), "redis_version"));
		}
	}

	@Test
	void extraConfigArgsArePassedToTheServer() {
		try (RedisServer server = RedisServer.start("--notify-keyspace-events", "Ex"); RedisCli cli = server.cli()) {
			assertThat(cli.command("CONFIG", "GET", "notify-keyspace-events"))
				.isEqualTo(List.of("notify-keyspace-events", "xE"));
			assertThat(cli.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
			assertThat(cli.command("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
		}
	}

	@Test
	void replicaofArgumentsStartAReplicaOfAnotherServer() {
		try (RedisServer primary = RedisServer.start();
				RedisServer replica = RedisServer.start("--replicaof", primary.host(),
						Integer.toString(primary.port()));
				RedisCli primaryCli = primary.cli();
				RedisCli replicaCli = replica.cli()) {
			primaryCli.set("key", "value");
			assertThat(primaryCli.command("WAIT", "1", "5000")).isEqualTo(1L);
			assertThat(replicaCli.get("key")).isEqualTo("value");
			String replication = replicaCli.info("replication");
			assertThat(InfoFields.get(replication, "role")).isEqualTo("slave");
			assertThat(InfoFields.get(replication, "master_port")).isEqualTo(Integer.toString(primary.port()));
		}
	}

	@Test
	void firstArgumentNotStartingWithADashIsAConfigurationFile(@TempDir Path directory) throws Exception {
		Path config = directory.resolve("redis.conf");
		Files.writeString(config, "notify-keyspace-events Kx\n");
		try (RedisServer server = RedisServer.start(config.toString(), "--maxmemory-policy", "noeviction");
				RedisCli cli = server.cli()) {
			assertThat(cli.command("CONFIG", "GET", "notify-keyspace-events"))
				.isEqualTo(List.of("notify-keyspace-events", "xK"));
			assertThat(InfoFields.get(cli.info("server"), "config_file")).isEqualTo(config.toString());
		}
	}

	@Test
	void clusterNodeGetsAPortWhoseClusterBusPortIsFreeToo() {
		Path directory = ShutdownCleanup.createDirectory();
		try (RedisServer node = RedisServer.start(directory, "--cluster-enabled", "yes"); RedisCli cli = node.cli()) {
			assertThat(InfoFields.get(cli.info("cluster"), "cluster_enabled")).isEqualTo("1");
			assertThat(node.port() + Ports.CLUSTER_BUS_OFFSET).isLessThanOrEqualTo(65535);
			assertThat(Ports.isFree(node.port() + Ports.CLUSTER_BUS_OFFSET)).isFalse();
		}
		assertThat(directory).doesNotExist();
	}

	@Test
	void startFailsWithTheServerOutputWhenTheConfigurationIsWrong() {
		assertThatIllegalStateException().isThrownBy(() -> RedisServer.start("--no-such-directive", "x"))
			.withMessageContaining("exited with code")
			.withMessageContaining("no-such-directive");
	}

	@Test
	void stopThenRestartUsesTheSamePortWithNoData() {
		try (RedisServer server = RedisServer.start()) {
			int port = server.port();
			long pid = server.pid();
			try (RedisCli cli = server.cli()) {
				cli.set("key", "value");
			}
			server.stop();
			assertThat(server.isRunning()).isFalse();
			assertThat(isAlive(pid)).isFalse();
			assertThat(Ports.isFree(port)).isTrue();
			server.restart();
			assertThat(server.isRunning()).isTrue();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.pid()).isNotEqualTo(pid);
			try (RedisCli cli = server.cli()) {
				assertThat(cli.ping()).isEqualTo("PONG");
				assertThat(cli.get("key")).isNull();
				assertThat(cli.dbSize()).isZero();
			}
		}
	}

	@Test
	void restartWaitsUntilThePortIsFreeAgain() throws Exception {
		try (RedisServer server = RedisServer.start()) {
			server.stop();
			ServerSocket blocker = new ServerSocket(server.port(), 1, InetAddress.getLoopbackAddress());
			CompletableFuture<Void> release = CompletableFuture.runAsync(() -> closeQuietly(blocker),
					CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));
			try {
				server.restart();
				assertThat(release).isDone();
				try (RedisCli cli = server.cli()) {
					assertThat(InfoFields.get(cli.info("server"), "process_id")).isEqualTo(Long.toString(server.pid()));
				}
			}
			finally {
				closeQuietly(blocker);
			}
		}
	}

	@Test
	void restartWhileRunningStopsTheServerFirst() {
		try (RedisServer server = RedisServer.start()) {
			long pid = server.pid();
			server.restart();
			assertThat(isAlive(pid)).isFalse();
			assertThat(server.pid()).isNotEqualTo(pid);
			try (RedisCli cli = server.cli()) {
				assertThat(cli.ping()).isEqualTo("PONG");
			}
		}
	}

	@Test
	void killEndsTheProcessAndRestartBringsItBack() {
		try (RedisServer server = RedisServer.start(); RedisCli cli = server.cli()) {
			int port = server.port();
			long pid = server.pid();
			cli.set("key", "value");
			server.kill();
			assertThat(isAlive(pid)).isFalse();
			assertThat(server.isRunning()).isFalse();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(cli::ping);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(server::cli);
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(cli.ping()).isEqualTo("PONG");
			assertThat(cli.get("key")).isNull();
		}
	}

	@Test
	void pausedServerMakesCommandsTimeOutUntilResumed() {
		// A second without an answer is a pause; an answer that must come gets longer.
		try (RedisServer server = RedisServer.start(); RedisCli cli = server.cli(Duration.ofSeconds(1))) {
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> "PONG".equals(cli.ping()));
			server.pause();
			assertThat(server.isRunning()).isTrue();
			assertThat(isAlive(server.pid())).isTrue();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(cli::ping)
				.withCauseInstanceOf(SocketTimeoutException.class);
			server.resume();
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> "PONG".equals(cli.ping()));
		}
	}

	@Test
	void stopResumesAPausedServerFirst() {
		try (RedisServer server = RedisServer.start()) {
			long pid = server.pid();
			server.pause();
			server.stop();
			assertThat(isAlive(pid)).isFalse();
		}
	}

	@Test
	void closeLeavesNoProcessAndNoWorkingDirectory() {
		RedisServer server = RedisServer.start();
		long pid = server.pid();
		Path directory;
		try (RedisCli cli = server.cli()) {
			directory = Path.of((String) ((List<?>) cli.command("CONFIG", "GET", "dir")).get(1));
		}
		assertThat(directory).isDirectory();
		server.close();
		assertThat(isAlive(pid)).isFalse();
		assertThat(Files.exists(directory)).isFalse();
		assertThat(server.isRunning()).isFalse();
		server.close();
		assertThatIllegalStateException().isThrownBy(server::restart);
	}

	@Test
	void closeKillsAPausedServer() {
		RedisServer server = RedisServer.start();
		long pid = server.pid();
		server.pause();
		server.close();
		assertThat(isAlive(pid)).isFalse();
	}

	private static void closeQuietly(ServerSocket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static boolean isAlive(long pid) {
		return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
	}

}
