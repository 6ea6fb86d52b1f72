package io.github.redislock.test;

import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RedisCli}.
 */
@RedisTest
class RedisCliTests {

	@Test
	void repliesAreMappedToJavaTypes(RedisServer server) {
		try (RedisCli cli = server.cli()) {
			assertThat(cli.command("SET", "counter", "41")).isEqualTo("OK");
			assertThat(cli.command("INCR", "counter")).isEqualTo(42L);
			assertThat(cli.command("GET", "missing")).isNull();
			assertThat(cli.command("RPUSH", "list", "a", "b")).isEqualTo(2L);
			assertThat(cli.command("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "b"));
			assertThat(cli.command("LRANGE", "missing", "0", "-1")).isEqualTo(List.of());
			assertThat(cli.command("BLPOP", "missing", "0.01")).isNull();
		}
	}

	@Test
	void valuesRoundTripAsUtf8(RedisServer server) {
		try (RedisCli cli = server.cli()) {
			cli.set("clé", "välue with\r\nline break");
			assertThat(cli.get("clé")).isEqualTo("välue with\r\nline break");
			assertThat(cli.command("STRLEN", "clé")).isEqualTo(23L);
		}
	}

	@Test
	void errorReplyThrowsWithTheErrorTextAndKeepsTheConnectionUsable(RedisServer server) {
		try (RedisCli cli = server.cli()) {
			cli.set("text", "value");
			assertThatExceptionOfType(RedisErrorReplyException.class)
				.isThrownBy(() -> cli.command("LPUSH", "text", "x"))
				.satisfies((ex) -> assertThat(ex.getError()).startsWith("WRONGTYPE"));
			assertThatExceptionOfType(RedisErrorReplyException.class).isThrownBy(() -> cli.command("NO-SUCH-COMMAND"))
				.withMessageContaining("ERR");
			assertThat(cli.ping()).isEqualTo("PONG");
		}
	}

	@Test
	void convenienceMethodsSendTheirCommands(RedisServer server) {
		try (RedisCli cli = server.cli()) {
			assertThat(cli.ping()).isEqualTo("PONG");
			cli.set("lock:a", "1");
			cli.set("lock:b", "2");
			cli.set("other", "3");
			cli.command("PEXPIRE", "lock:a", "60000");
			assertThat(cli.dbSize()).isEqualTo(3);
			assertThat(cli.keys("lock:*")).containsExactlyInAnyOrder("lock:a", "lock:b");
			assertThat(cli.pttl("lock:a")).isBetween(1L, 60000L);
			assertThat(cli.pttl("lock:b")).isEqualTo(-1);
			assertThat(cli.pttl("missing")).isEqualTo(-2);
			assertThat(cli.get("other")).isEqualTo("3");
			assertThat(cli.info("server")).contains("redis_version:" + server.version());
			assertThat(cli.flushAll()).isEqualTo("OK");
			assertThat(cli.dbSize()).isZero();
		}
	}

	@Test
	void commandReconnectsAfterAConnectionFailure(RedisServer server) {
		try (RedisCli cli = server.cli()) {
			cli.command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "no");
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(cli::ping);
			assertThat(cli.ping()).isEqualTo("PONG");
		}
	}

	@Test
	void connectingToAClosedPortFails() throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> new RedisCli("127.0.0.1", port))
			.withMessageContaining("Could not connect");
	}

}
