package io.github.redislock.test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real Redis server for tests, on a free loopback port, without persistence, that fault
 * tests can stop, kill, pause and restart on the same port. A primary serves its replicas
 * at once ({@code repl-diskless-sync-delay 0}).
 * <p>
 * The server comes from, in this order: {@code redis-server} on the {@code PATH}, the
 * Redis 6.2 binary shipped in {@code com.github.codemonstur:embedded-redis}, a
 * Testcontainers {@code redis:7} container when a Docker engine answers. The system
 * property {@code redislock.test.redis} overrides that: {@code embedded} forces the
 * embedded 6.2 binary, {@code path} the one on the {@code PATH}, {@code testcontainers} a
 * container, and any other value is taken as the path of a {@code redis-server} binary.
 * Containers cannot be {@link #restart() restarted}.
 * <p>
 * Always {@link #close() close} the server; a JVM shutdown hook kills the ones left over.
 */
public final class RedisServer implements AutoCloseable {

	private final RedisBackend backend;

	private RedisServer(RedisBackend backend) {
		this.backend = backend;
	}

	/**
	 * Starts a server on a free loopback port, without persistence, and waits (up to 10
	 * seconds) until it answers {@code PING}.
	 * @return the running server
	 * @throws IllegalStateException if no server can be started, with the reason and the
	 * server's output
	 */
	public static RedisServer start() {
		return start(new String[0]);
	}

	/**
	 * Starts a server like {@link #start()} with more {@code redis-server} arguments.
	 * They are appended to the ones that set the port, the loopback address and no
	 * persistence, so they can also make the server a replica:
	 * {@code start("--replicaof", primary.host(), String.valueOf(primary.port()))}. As
	 * for {@code redis-server}, a first argument that does not start with {@code -} is
	 * the path of a configuration file.
	 * @param extraConfigArgs the arguments, for example
	 * {@code "--notify-keyspace-events", "Ex"}
	 * @return the running server
	 * @throws IllegalStateException if no server can be started, with the reason and the
	 * server's output
	 */
	public static RedisServer start(String... extraConfigArgs) {
		return start(RedisLaunchers.fromSystemProperty(), extraConfigArgs);
	}

	static RedisServer start(RedisLauncher launcher, String... extraConfigArgs) {
		return new RedisServer(launcher.launch(List.of(extraConfigArgs)));
	}

	/**
	 * Starts a server process of this machine in the given working directory, for cluster
	 * nodes and sentinels.
	 * @param directory the working directory, owned by the server from now on: deleted
	 * when it is closed or fails to start
	 * @param args the {@code redis-server} arguments; the first one is the path of a
	 * configuration file if it does not start with {@code -}
	 * @return the running server
	 * @throws UnsupportedOperationException if Redis comes from Testcontainers
	 */
	static RedisServer start(Path directory, String... args) {
		return new RedisServer(RedisLaunchers.fromSystemProperty().launch(directory, List.of(args)));
	}

	/**
	 * Returns the host to connect to, {@code "127.0.0.1"} for a local process.
	 * @return the host
	 */
	public String host() {
		return this.backend.host();
	}

	/**
	 * Returns the port, which stays the same across {@link #restart() restarts}.
	 * @return the port
	 */
	public int port() {
		return this.backend.port();
	}

	/**
	 * Returns the URI to connect to, for example {@code "redis://127.0.0.1:41234"}.
	 * @return the URI
	 */
	public String uri() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Returns the version reported by the server when it started, for example
	 * {@code "7.0.15"}.
	 * @return the version
	 */
	public String version() {
		return this.backend.version();
	}

	/**
	 * Returns the process id of the current server process; it changes on
	 * {@link #restart()}.
	 * @return the process id
	 */
	public long pid() {
		return this.backend.pid();
	}

	/**
	 * Returns whether the server process is alive, including while it is {@link #pause()
	 * paused}.
	 * @return whether the server is running
	 */
	public boolean isRunning() {
		return this.backend.isRunning();
	}

	/**
	 * Returns whether the server is alive and {@link #pause() paused}.
	 * @return whether the server is paused
	 */
	boolean isPaused() {
		return this.backend.isPaused();
	}

	/**
	 * Returns whether the server was {@link #close() closed}.
	 * @return whether the server is closed
	 */
	boolean isClosed() {
		return this.backend.isClosed();
	}

	/**
	 * Stops the server gracefully ({@code SHUTDOWN NOSAVE}, else {@code SIGTERM}),
	 * resuming it first if paused, and waits until the process has exited and the port is
	 * free. Does nothing if the server is not running.
	 */
	public void stop() {
		this.backend.stop();
	}

	/**
	 * Kills the server with {@code SIGKILL}, as in a crash, and waits until the process
	 * has exited. Does nothing if the server is not running.
	 */
	public void kill() {
		this.backend.kill();
	}

	/**
	 * Pauses the server with {@code SIGSTOP}: the process stays alive and accepts
	 * connections, but commands get no reply until {@link #resume()}.
	 * @throws IllegalStateException if the server is not running
	 */
	public void pause() {
		this.backend.pause();
	}

	/**
	 * Resumes a {@link #pause() paused} server with {@code SIGCONT}. Does nothing if it
	 * is not paused.
	 */
	public void resume() {
		this.backend.resume();
	}

	/**
	 * Starts a new server process on the same port, with no data, and waits until it
	 * answers {@code PING}. A running server is {@link #stop() stopped} first. Retries
	 * for a few seconds while the port is still in use.
	 * @throws UnsupportedOperationException for a Testcontainers container
	 */
	public void restart() {
		this.backend.restart();
	}

	/**
	 * Opens a new connection to the server with the {@link RedisCli#DEFAULT_TIMEOUT
	 * default timeout}. Each call returns a new client that the caller must close.
	 * @return the client
	 */
	public RedisCli cli() {
		return cli(RedisCli.DEFAULT_TIMEOUT);
	}

	/**
	 * Opens a new connection to the server. Each call returns a new client that the
	 * caller must close.
	 * @param timeout the connect and read timeout, short to see a paused server fail fast
	 * @return the client
	 */
	public RedisCli cli(Duration timeout) {
		return new RedisCli(host(), port(), timeout);
	}

	/**
	 * Kills the server if it is alive (resuming it first if paused) and deletes its
	 * working directory. Calling it again has no effect.
	 */
	@Override
	public void close() {
		this.backend.close();
	}

	@Override
	public String toString() {
		return this.backend.toString();
	}

	/**
	 * Closes every server, going on when one fails, then throws the first failure with
	 * the others suppressed.
	 * @param servers the servers, closed in this order
	 */
	static void closeAll(List<RedisServer> servers) {
		RuntimeException failure = null;
		for (RedisServer server : servers) {
			try {
				server.close();
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
