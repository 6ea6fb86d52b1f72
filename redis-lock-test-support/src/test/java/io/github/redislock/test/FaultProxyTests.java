package io.github.redislock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link FaultProxy}.
 */
@RedisTest
class FaultProxyTests {

	/** How long a client waits before it takes silence for a blackhole. */
	private static final Duration SILENCE = Duration.ofSeconds(1);

	/**
	 * How long a client waits for an answer that must come: long, so that a busy machine
	 * does not turn a slow answer into a failure.
	 */
	private static final Duration ANSWER = Duration.ofSeconds(10);

	@Test
	void passModeForwardsCommandsBothWays(RedisServer server) {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				RedisCli cli = new RedisCli(proxy.host(), proxy.port())) {
			assertThat(proxy.host()).isEqualTo("127.0.0.1");
			assertThat(proxy.port()).isNotEqualTo(server.port()).isNotEqualTo(6379);
			assertThat(cli.set("key", "value")).isEqualTo("OK");
			assertThat(cli.get("key")).isEqualTo("value");
			try (RedisCli direct = server.cli()) {
				assertThat(direct.get("key")).isEqualTo("value");
			}
			assertThat(proxy.connectionCount()).isEqualTo(1);
		}
	}

	@Test
	void delayMakesEachCommandTakeAtLeastTheDelay(RedisServer server) {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				RedisCli cli = new RedisCli(proxy.host(), proxy.port())) {
			assertThat(cli.ping()).isEqualTo("PONG");
			proxy.delay(Duration.ofMillis(200));
			long start = System.nanoTime();
			assertThat(cli.ping()).isEqualTo("PONG");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			proxy.pass();
			assertThat(cli.ping()).isEqualTo("PONG");
		}
	}

	@Test
	void blackholeMakesCommandsAndNewConnectionsTimeOutUntilPass(RedisServer server) {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				RedisCli cli = new RedisCli(proxy.host(), proxy.port(), SILENCE)) {
			awaitPong(cli);
			proxy.blackhole();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(cli::ping)
				.withCauseInstanceOf(SocketTimeoutException.class);
			try (RedisCli other = new RedisCli(proxy.host(), proxy.port(), SILENCE)) {
				assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(other::ping)
					.withCauseInstanceOf(SocketTimeoutException.class);
			}
			proxy.pass();
			try (RedisCli other = new RedisCli(proxy.host(), proxy.port(), ANSWER)) {
				assertThat(other.ping()).isEqualTo("PONG");
			}
		}
	}

	@Test
	void blackholeHoldsBytesThatPassDeliversLate(RedisServer server) throws IOException {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				Socket socket = new Socket(proxy.host(), proxy.port())) {
			socket.setSoTimeout((int) SILENCE.toMillis());
			proxy.blackhole();
			socket.getOutputStream()
				.write("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$4\r\nlate\r\n".getBytes(StandardCharsets.US_ASCII));
			InputStream input = socket.getInputStream();
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(input::read);
			try (RedisCli direct = server.cli()) {
				assertThat(direct.get("key")).isNull();
				proxy.pass();
				socket.setSoTimeout((int) ANSWER.toMillis());
				assertThat(new String(input.readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("+OK\r\n");
				assertThat(direct.get("key")).isEqualTo("late");
			}
		}
	}

	@Test
	void holdRepliesLetsCommandsRunAndEndConnectionsLosesTheirAnswers(RedisServer server) throws IOException {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				Socket socket = new Socket(proxy.host(), proxy.port());
				RedisCli direct = server.cli()) {
			socket.setSoTimeout((int) SILENCE.toMillis());
			proxy.holdReplies();
			socket.getOutputStream().write("*2\r\n$4\r\nINCR\r\n$7\r\ncounter\r\n".getBytes(StandardCharsets.US_ASCII));
			await().atMost(Duration.ofSeconds(5)).until(() -> "1".equals(direct.get("counter")));
			InputStream input = socket.getInputStream();
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(input::read);
			socket.setSoTimeout((int) ANSWER.toMillis());
			proxy.endConnections();
			assertThat(input.read()).isEqualTo(-1);
			assertThat(proxy.connectionCount()).isZero();
		}
	}

	@Test
	void closeConnectionsFailsTheNextCommandAndNewConnectionsWork(RedisServer server) {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				RedisCli cli = new RedisCli(proxy.host(), proxy.port(), ANSWER)) {
			assertThat(cli.ping()).isEqualTo("PONG");
			proxy.closeConnections();
			assertThat(proxy.connectionCount()).isZero();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(cli::ping);
			// The client connects again after a failure
			assertThat(cli.ping()).isEqualTo("PONG");
			assertThat(proxy.connectionCount()).isEqualTo(1);
		}
	}

	@Test
	void refuseMakesConnectingFailAndPassListensAgainOnTheSamePort(RedisServer server) {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				RedisCli existing = new RedisCli(proxy.host(), proxy.port(), ANSWER)) {
			int port = proxy.port();
			// Accepted by the proxy, not just waiting in the backlog of its socket
			assertThat(existing.ping()).isEqualTo("PONG");
			proxy.refuse();
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> new RedisCli(proxy.host(), proxy.port(), ANSWER))
				.withCauseInstanceOf(ConnectException.class);
			assertThat(existing.ping()).isEqualTo("PONG");
			proxy.pass();
			assertThat(proxy.port()).isEqualTo(port);
			try (RedisCli cli = new RedisCli(proxy.host(), proxy.port(), ANSWER)) {
				assertThat(cli.ping()).isEqualTo("PONG");
			}
		}
	}

	@Test
	void targetGoingAwayClosesTheClientConnection(@RedisTest.Dedicated RedisServer server) {
		try (FaultProxy proxy = FaultProxy.start(server.host(), server.port());
				RedisCli cli = new RedisCli(proxy.host(), proxy.port(), ANSWER)) {
			assertThat(cli.ping()).isEqualTo("PONG");
			server.kill();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(cli::ping);
			await().atMost(Duration.ofSeconds(5)).until(() -> proxy.connectionCount() == 0);
		}
	}

	@Test
	void closeStopsListeningAndClosesEveryConnection(RedisServer server) {
		FaultProxy proxy = FaultProxy.start(server.host(), server.port());
		try (RedisCli cli = new RedisCli(proxy.host(), proxy.port(), ANSWER)) {
			assertThat(cli.ping()).isEqualTo("PONG");
			proxy.close();
			assertThat(proxy.connectionCount()).isZero();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(cli::ping);
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> new RedisCli(proxy.host(), proxy.port(), ANSWER));
			assertThatIllegalStateException().isThrownBy(proxy::pass);
			proxy.close();
		}
	}

	/** Waits until a client with a short timeout got an answer through the proxy. */
	private static void awaitPong(RedisCli cli) {
		await().atMost(ANSWER).ignoreExceptions().until(() -> "PONG".equals(cli.ping()));
	}

}
