package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks free loopback ports and remembers the ones handed out in this JVM, so two servers
 * started at the same time never get the same port.
 */
final class Ports {

	private static final Set<Integer> reserved = ConcurrentHashMap.newKeySet();

	private Ports() {
	}

	/**
	 * Returns a port that is free now and not reserved by another server of this JVM. The
	 * caller must {@link #release(int) release} it once it no longer uses it.
	 * @return the port
	 */
	static int reserve() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port;
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
				port = socket.getLocalPort();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not find a free port", ex);
			}
			if (reserved.add(port)) {
				return port;
			}
		}
		throw new IllegalStateException("Could not find a free port");
	}

	/**
	 * Releases a port handed out by {@link #reserve()}.
	 * @param port the port
	 */
	static void release(int port) {
		reserved.remove(port);
	}

	/**
	 * Returns whether a server could listen on the loopback port now. Uses
	 * {@code SO_REUSEADDR} like redis-server does, so connections in TIME_WAIT do not
	 * count.
	 * @param port the port
	 * @return whether the port is free
	 */
	static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
