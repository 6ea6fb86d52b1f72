package io.github.redislock.test;

import java.io.UncheckedIOException;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on a free loopback port that forwards to a target, such as a
 * {@link RedisServer}, and injects network faults between a client and it. Point the
 * client at {@link #host()} and {@link #port()}, then switch modes while it runs:
 * <ul>
 * <li>{@link #pass()}, the initial mode: bytes are forwarded as they come;</li>
 * <li>{@link #delay(Duration)}: every chunk of bytes waits before it is forwarded, in
 * both directions;</li>
 * <li>{@link #blackhole()}: nothing is forwarded in either direction and new connections
 * are accepted but not forwarded, so the client sees timeouts, not errors. Bytes are
 * held, not dropped, as in a network partition: after {@link #pass()} they go through, so
 * a command the client gave up on may still be executed and answered late;</li>
 * <li>{@link #holdReplies()}: the client's bytes go through but the target's replies are
 * held, so Redis runs the commands while the client waits for answers; ending the
 * connections then loses the replies, and a client that sends unanswered commands again
 * after reconnecting (as Lettuce does) makes Redis run them twice;</li>
 * <li>{@link #refuse()}: nobody listens on the port, so connecting fails at once;
 * connections already accepted go on.</li>
 * </ul>
 * {@link #closeConnections()} resets every current connection in any mode, and
 * {@link #endConnections()} closes them cleanly, as a server does that shuts a
 * connection. Each connection uses two daemon threads; the target is connected to when
 * the client sends its first bytes and they may be forwarded. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {

	private final String targetHost;

	private final int targetPort;

	private final int port;

	private final Set<ProxyConnection> connections = ConcurrentHashMap.newKeySet();

	// Guards the fields below; notified on every change for the waiting connections
	private final Object lock = new Object();

	private Mode mode = Mode.PASS;

	private long delayNanos;

	// Null while refusing connections
	private ProxyListener listener;

	private volatile boolean closed;

	private FaultProxy(String targetHost, int targetPort) {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		// The accepting thread starts last and sees every field written above
		this.listener = ProxyListener.open(this::accepted);
		this.port = this.listener.port();
		Ports.claim(this.port);
	}

	/**
	 * Starts a proxy in {@link #pass()} mode on a free loopback port.
	 * @param targetHost the host to forward to, for example {@code server.host()}
	 * @param targetPort the port to forward to
	 * @return the running proxy
	 * @throws UncheckedIOException if no port can be bound
	 */
	public static FaultProxy start(String targetHost, int targetPort) {
		return new FaultProxy(targetHost, targetPort);
	}

	/**
	 * Returns the host to connect to, {@code "127.0.0.1"}.
	 * @return the host
	 */
	public String host() {
		return ProxyListener.HOST;
	}

	/**
	 * Returns the port to connect to, which stays the same in every mode.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Forwards bytes as they come, and listens again if {@link #refuse() refusing}. Bytes
	 * held by {@link #blackhole()} or {@link #delay(Duration)} go through at once.
	 * @throws IllegalStateException if the proxy is closed or its port was taken
	 * meanwhile
	 */
	public void pass() {
		setMode(Mode.PASS, 0);
	}

	/**
	 * Makes every chunk of bytes wait before it is forwarded, in both directions, so a
	 * request and its reply take at least twice the latency; listens again if
	 * {@link #refuse() refusing}.
	 * @param latency the time each chunk waits, counted from when the proxy read it
	 * @throws IllegalStateException if the proxy is closed or its port was taken
	 * meanwhile
	 */
	public void delay(Duration latency) {
		setMode(Mode.DELAY, latency.toNanos());
	}

	/**
	 * Forwards nothing in either direction, holding the bytes until another mode is set,
	 * and accepts new connections without forwarding them: clients see timeouts. Listens
	 * again if {@link #refuse() refusing}.
	 * @throws IllegalStateException if the proxy is closed or its port was taken
	 * meanwhile
	 */
	public void blackhole() {
		setMode(Mode.BLACKHOLE, 0);
	}

	/**
	 * Forwards the client's bytes but holds the target's replies until another mode is
	 * set, so that commands run while their answers wait. Together with
	 * {@link #endConnections()} or {@link #closeConnections()} this loses the answers of
	 * commands that ran. Listens again if {@link #refuse() refusing}.
	 * @throws IllegalStateException if the proxy is closed or its port was taken
	 * meanwhile
	 */
	public void holdReplies() {
		setMode(Mode.HOLD_REPLIES, 0);
	}

	/**
	 * Stops listening, so that connecting fails with "connection refused", as when the
	 * target is down. Connections the proxy accepted go on forwarding (those that the
	 * kernel completed but the proxy had not accepted yet are reset); call
	 * {@link #closeConnections()} as well to cut them. {@link #pass()} listens again on
	 * the same port.
	 * @throws IllegalStateException if the proxy is closed
	 */
	public void refuse() {
		setMode(Mode.REFUSE, 0);
	}

	/**
	 * Resets every current connection (TCP RST to the client, close to the target), so
	 * the client's next read or write fails. New connections are accepted as the mode
	 * says.
	 */
	public void closeConnections() {
		for (ProxyConnection connection : this.connections) {
			connection.close(true);
		}
	}

	/**
	 * Closes every current connection cleanly (TCP FIN to the client, close to the
	 * target), as a Redis server does that ends a connection; held bytes are dropped. New
	 * connections are accepted as the mode says.
	 */
	public void endConnections() {
		for (ProxyConnection connection : this.connections) {
			connection.close(false);
		}
	}

	/**
	 * Returns the number of client connections currently open through the proxy.
	 * @return the number of connections
	 */
	public int connectionCount() {
		return this.connections.size();
	}

	/**
	 * Stops listening and closes every connection. Calling it again has no effect.
	 */
	@Override
	public void close() {
		synchronized (this.lock) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			closeListener();
			this.lock.notifyAll();
		}
		for (ProxyConnection connection : this.connections) {
			connection.close(false);
		}
		Ports.release(this.port);
	}

	@Override
	public String toString() {
		return "FaultProxy " + ProxyListener.HOST + ":" + this.port + " -> " + this.targetHost + ":" + this.targetPort;
	}

	/**
	 * Waits until a chunk of bytes read at the given time may be forwarded.
	 * @param readNanos when the chunk was read, from {@link System#nanoTime()}
	 * @param connection the connection of the chunk
	 * @param reply whether the chunk goes from the target to the client
	 * @return {@code true} to forward it, {@code false} if the connection was closed
	 * meanwhile
	 */
	boolean awaitForwarding(long readNanos, ProxyConnection connection, boolean reply) {
		synchronized (this.lock) {
			try {
				while (!connection.isClosed() && !this.closed) {
					long waitNanos = switch (this.mode) {
						case BLACKHOLE -> Long.MAX_VALUE;
						case HOLD_REPLIES -> reply ? Long.MAX_VALUE : 0;
						case DELAY -> readNanos + this.delayNanos - System.nanoTime();
						default -> 0;
					};
					if (waitNanos <= 0) {
						return true;
					}
					TimeUnit.NANOSECONDS.timedWait(this.lock, waitNanos);
				}
				return false;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
	}

	/**
	 * Forgets a closed connection and wakes its threads if they wait to forward.
	 * @param connection the connection
	 */
	void closed(ProxyConnection connection) {
		this.connections.remove(connection);
		synchronized (this.lock) {
			this.lock.notifyAll();
		}
	}

	private void closeListener() {
		if (this.listener != null) {
			this.listener.close();
			this.listener = null;
		}
	}

	private void setMode(Mode mode, long delayNanos) {
		synchronized (this.lock) {
			if (this.closed) {
				throw new IllegalStateException(this + " is closed");
			}
			if (mode == Mode.REFUSE) {
				closeListener();
			}
			else if (this.listener == null) {
				this.listener = ProxyListener.reopen(this.port, this::accepted);
			}
			this.mode = mode;
			this.delayNanos = delayNanos;
			this.lock.notifyAll();
		}
	}

	private void accepted(Socket client) {
		ProxyConnection connection = new ProxyConnection(this, client, this.targetHost, this.targetPort);
		this.connections.add(connection);
		if (this.closed) {
			// close() may have closed the connections before this one was added
			connection.close(false);
			return;
		}
		connection.start();
	}

	private enum Mode {

		PASS, DELAY, BLACKHOLE, HOLD_REPLIES, REFUSE

	}

}
