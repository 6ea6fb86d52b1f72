package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The listening socket of a {@link FaultProxy} and the daemon thread accepting on it.
 * Closing it is synchronous: once {@link #close()} returns, connecting is refused.
 */
final class ProxyListener {

	static final String HOST = "127.0.0.1";

	private static final int BACKLOG = 50;

	private static final Duration REBIND_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration ACCEPTOR_EXIT_TIMEOUT = Duration.ofSeconds(5);

	private final ServerSocket socket;

	private final Thread acceptor;

	private ProxyListener(ServerSocket socket, Consumer<Socket> handler) {
		this.socket = socket;
		this.acceptor = new Thread(() -> accept(handler), "fault-proxy-" + socket.getLocalPort() + "-accept");
		this.acceptor.setDaemon(true);
		this.acceptor.start();
	}

	/**
	 * Listens on a free loopback port.
	 * @param handler takes each accepted connection, on the accepting thread
	 * @return the listener
	 * @throws UncheckedIOException if no port can be bound
	 */
	static ProxyListener open(Consumer<Socket> handler) {
		return new ProxyListener(bind(0), handler);
	}

	/**
	 * Listens again on a port used before, waiting a few seconds if it is still taken.
	 * @param port the port
	 * @param handler takes each accepted connection, on the accepting thread
	 * @return the listener
	 * @throws IllegalStateException if the port stays in use
	 */
	static ProxyListener reopen(int port, Consumer<Socket> handler) {
		ServerSocket[] bound = new ServerSocket[1];
		boolean success = Polling.await(() -> {
			try {
				bound[0] = bind(port);
				return true;
			}
			catch (UncheckedIOException ex) {
				return false;
			}
		}, REBIND_TIMEOUT);
		if (!success) {
			throw new IllegalStateException("Could not listen on port " + port + " again: it is in use");
		}
		return new ProxyListener(bound[0], handler);
	}

	/**
	 * Returns the port listened on.
	 * @return the port
	 */
	int port() {
		return this.socket.getLocalPort();
	}

	/**
	 * Stops listening, and waits until the accepting thread has left {@code accept()}:
	 * until then the kernel keeps the socket listening and completes connections in its
	 * backlog.
	 */
	void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// Nobody can connect any more either way
		}
		try {
			this.acceptor.join(ACCEPTOR_EXIT_TIMEOUT.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void accept(Consumer<Socket> handler) {
		while (true) {
			Socket client;
			try {
				client = this.socket.accept();
			}
			catch (IOException ex) {
				// Closed by close()
				return;
			}
			if (this.socket.isClosed()) {
				// Accepted while closing: a refused connection gets a reset
				reset(client);
				return;
			}
			handler.accept(client);
		}
	}

	private static void reset(Socket client) {
		try {
			client.setSoLinger(true, 0);
			client.close();
		}
		catch (IOException ex) {
			// The client is refused either way
		}
	}

	private static ServerSocket bind(int port) {
		try {
			ServerSocket socket = new ServerSocket();
			try {
				// Rebinding must not wait for connections of the previous listener to go
				socket.setReuseAddress(true);
				socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port), BACKLOG);
				return socket;
			}
			catch (IOException ex) {
				socket.close();
				throw ex;
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not listen on " + HOST + ":" + port, ex);
		}
	}

}
