package io.github.redislock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client connection through a {@link FaultProxy}: a daemon thread copies the client's
 * bytes to the target, another the target's bytes back, each asking the proxy before
 * forwarding a chunk. When either side closes, both are closed, so the other side sees it
 * as well.
 */
final class ProxyConnection {

	private static final int CONNECT_TIMEOUT_MILLIS = 2000;

	private static final int BUFFER_SIZE = 16 * 1024;

	private static final AtomicInteger ids = new AtomicInteger();

	private final FaultProxy proxy;

	private final Socket client;

	private final String targetHost;

	private final int targetPort;

	private final String name;

	// Guarded by this; connected when the first bytes of the client may be forwarded
	private Socket target;

	private volatile boolean closed;

	ProxyConnection(FaultProxy proxy, Socket client, String targetHost, int targetPort) {
		this.proxy = proxy;
		this.client = client;
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.name = "fault-proxy-" + client.getLocalPort() + "-connection-" + ids.incrementAndGet();
		try {
			// Small writes such as Redis replies go out at once, as without the proxy
			client.setTcpNoDelay(true);
		}
		catch (IOException ex) {
			// Only slower
		}
	}

	/**
	 * Starts forwarding the client's bytes.
	 */
	void start() {
		startThread(this::forwardFromClient, "out");
	}

	/**
	 * Returns whether the connection was closed.
	 * @return whether it is closed
	 */
	boolean isClosed() {
		return this.closed;
	}

	/**
	 * Closes both sides. Calling it again has no effect.
	 * @param reset whether to reset the client's side (TCP RST) rather than close it
	 */
	void close(boolean reset) {
		Socket target;
		synchronized (this) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			target = this.target;
		}
		if (reset) {
			try {
				// A zero linger time makes close() send RST instead of FIN
				this.client.setSoLinger(true, 0);
			}
			catch (IOException ex) {
				// Then the client gets a plain close, which fails its next read as well
			}
		}
		closeQuietly(this.client);
		if (target != null) {
			closeQuietly(target);
		}
		this.proxy.closed(this);
	}

	private void forwardFromClient() {
		try (InputStream input = this.client.getInputStream()) {
			OutputStream output = null;
			byte[] buffer = new byte[BUFFER_SIZE];
			int read;
			while ((read = input.read(buffer)) != -1) {
				if (!this.proxy.awaitForwarding(System.nanoTime(), this, false)) {
					break;
				}
				if (output == null) {
					output = connectTarget().getOutputStream();
				}
				output.write(buffer, 0, read);
				output.flush();
			}
		}
		catch (IOException ex) {
			// Either side went away: closing both below lets the other one know
		}
		finally {
			close(false);
		}
	}

	private void forwardFromTarget(Socket target) {
		try (InputStream input = target.getInputStream()) {
			OutputStream output = this.client.getOutputStream();
			byte[] buffer = new byte[BUFFER_SIZE];
			int read;
			while ((read = input.read(buffer)) != -1) {
				if (!this.proxy.awaitForwarding(System.nanoTime(), this, true)) {
					break;
				}
				output.write(buffer, 0, read);
				output.flush();
			}
		}
		catch (IOException ex) {
			// Either side went away: closing both below lets the other one know
		}
		finally {
			close(false);
		}
	}

	private Socket connectTarget() throws IOException {
		Socket target = new Socket();
		try {
			target.setTcpNoDelay(true);
			target.connect(new InetSocketAddress(this.targetHost, this.targetPort), CONNECT_TIMEOUT_MILLIS);
		}
		catch (IOException ex) {
			closeQuietly(target);
			throw ex;
		}
		synchronized (this) {
			if (this.closed) {
				closeQuietly(target);
				throw new IOException("Connection closed while connecting to the target");
			}
			this.target = target;
		}
		startThread(() -> forwardFromTarget(target), "in");
		return target;
	}

	private void startThread(Runnable task, String direction) {
		Thread thread = new Thread(task, this.name + "-" + direction);
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Nothing more to do: the socket is abandoned
		}
	}

}
