package io.github.redislock.samples.flashsale.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Asks an address whether a Redis answers there, with a plain socket: no client library,
 * no connection pool, nothing left open.
 *
 * @author redis-lock
 */
final class RedisPing {

	private RedisPing() {
	}

	/**
	 * Send {@code PING} and wait for a reply. A Redis that requires a password answers
	 * with an error, and counts as answering.
	 * @param host the host name or address
	 * @param port the port
	 * @param timeout how long to wait for the connection and for the reply, each
	 * @return whether a Redis reply came back
	 */
	static boolean answers(String host, int port, Duration timeout) {
		int millis = (int) timeout.toMillis();
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), millis);
			socket.setSoTimeout(millis);
			OutputStream output = socket.getOutputStream();
			output.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			output.flush();
			InputStream input = socket.getInputStream();
			int first = input.read();
			// "+PONG", or "-NOAUTH ..." from a server with a password: either way, Redis
			return first == '+' || first == '-';
		}
		catch (IOException ex) {
			return false;
		}
	}

}
