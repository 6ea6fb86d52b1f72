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

	/**
	 * How far above its port a cluster node listens for the cluster bus, fixed in Redis
	 * 6.2 ({@code cluster-port} only came with 7.0).
	 */
	static final int CLUSTER_BUS_OFFSET = 10000;

	private static final int MAX_PORT = 65535;

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
	 * Returns a port like {@link #reserve()} whose cluster bus port ({@code port + }
	 * {@value #CLUSTER_BUS_OFFSET}) is free and reserved as well. The caller must
	 * {@link #release(int) release} both.
	 * @return the port
	 */
	static int reserveWithClusterBus() {
		for (int attempt = 0; attempt < 100; attempt++) {
			int port = reserve();
			int bus = port + CLUSTER_BUS_OFFSET;
			if (bus <= MAX_PORT && isFree(bus) && reserved.add(bus)) {
				return port;
			}
			release(port);
		}
		throw new IllegalStateException("Could not find a free port with a free cluster bus port");
	}

	/**
	 * Reserves a port that is already bound by this JVM (a proxy listening on it), so
	 * that {@link #reserve()} does not hand it out while it is unbound for a moment.
	 * @param port the port
	 * @return whether the port was not reserved before
	 */
	static boolean claim(int port) {
		return reserved.add(port);
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
