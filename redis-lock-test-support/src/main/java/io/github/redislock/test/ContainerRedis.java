package io.github.redislock.test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse.ContainerState;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Redis in a Testcontainers container ({@code redis:7}), the last resort when no binary
 * can run here. Pause, resume, stop and kill go through the Docker client;
 * {@link #restart()} is unsupported because Docker maps a new host port on every start.
 * Only loaded once Testcontainers is known to be on the classpath.
 */
final class ContainerRedis implements RedisBackend {

	private static final DockerImageName IMAGE = DockerImageName.parse("redis:7");

	private static final int REDIS_PORT = 6379;

	private static final Duration STATE_TIMEOUT = Duration.ofSeconds(10);

	private final GenericContainer<?> container;

	private final String host;

	private final int port;

	private final String version;

	private volatile boolean paused;

	private volatile boolean closed;

	private ContainerRedis(GenericContainer<?> container) {
		this.container = container;
		this.host = container.getHost();
		this.port = container.getMappedPort(REDIS_PORT);
		try (RedisCli cli = new RedisCli(this.host, this.port)) {
			this.version = InfoFields.get(cli.info("server"), "redis_version");
		}
	}

	/**
	 * Returns whether a Docker engine answers.
	 * @return whether containers can be started
	 */
	static boolean isDockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * Returns a launcher that starts {@code redis:7} containers.
	 * @return the launcher
	 */
	static RedisLauncher launcher() {
		return new RedisLauncher() {

			@Override
			public RedisBackend launch(List<String> extraConfigArgs) {
				return start(extraConfigArgs);
			}

			@Override
			public RedisBackend launch(Path directory, List<String> args) {
				ShutdownCleanup.deleteDirectory(directory);
				throw new UnsupportedOperationException("Redis Cluster and Sentinel groups need redis-server processes "
						+ "on this machine, not containers whose ports Docker maps: install redis-server "
						+ "(apt-get install redis-server, or brew install redis) or add com.github.codemonstur:embedded-redis");
			}

			@Override
			public String description() {
				return "Testcontainers " + IMAGE;
			}

		};
	}

	private static ContainerRedis start(List<String> extraArgs) {
		List<String> command = new ArrayList<>(List.of("redis-server", "--save", "", "--appendonly", "no",
				"--repl-diskless-sync-delay", "0", "--protected-mode", "no"));
		command.addAll(extraArgs);
		GenericContainer<?> container = new GenericContainer<>(IMAGE).withExposedPorts(REDIS_PORT)
			.withCommand(command.toArray(new String[0]))
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
		container.start();
		try {
			return new ContainerRedis(container);
		}
		catch (RuntimeException ex) {
			container.stop();
			throw ex;
		}
	}

	@Override
	public String host() {
		return this.host;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public String version() {
		return this.version;
	}

	/**
	 * Returns the host pid of the container's main process, which this JVM may not be
	 * allowed to signal.
	 */
	@Override
	public long pid() {
		Long pid = state().getPidLong();
		return (pid != null) ? pid : -1;
	}

	@Override
	public boolean isRunning() {
		return !this.closed && Boolean.TRUE.equals(state().getRunning());
	}

	@Override
	public boolean isPaused() {
		return this.paused && isRunning();
	}

	@Override
	public boolean isClosed() {
		return this.closed;
	}

	@Override
	public synchronized void stop() {
		resume();
		if (isRunning()) {
			client().stopContainerCmd(id()).withTimeout(10).exec();
			awaitNotRunning();
		}
	}

	@Override
	public synchronized void kill() {
		// Docker refuses to kill a paused container
		resume();
		if (isRunning()) {
			client().killContainerCmd(id()).withSignal("KILL").exec();
			awaitNotRunning();
		}
	}

	@Override
	public synchronized void pause() {
		if (!isRunning()) {
			throw new IllegalStateException("The Redis container is not running");
		}
		if (!this.paused) {
			client().pauseContainerCmd(id()).exec();
			this.paused = true;
		}
	}

	@Override
	public synchronized void resume() {
		if (this.paused) {
			client().unpauseContainerCmd(id()).exec();
			this.paused = false;
		}
	}

	@Override
	public void restart() {
		throw new UnsupportedOperationException("restart() is not supported for Redis in a Testcontainers container: "
				+ "Docker maps a new host port on every start. Install redis-server (apt-get install redis-server, "
				+ "or brew install redis) or add com.github.codemonstur:embedded-redis to run tests that restart Redis");
	}

	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		try {
			if (this.paused) {
				client().unpauseContainerCmd(id()).exec();
			}
		}
		catch (RuntimeException ex) {
			// Removing the container below is what matters
		}
		finally {
			this.paused = false;
			this.container.stop();
		}
	}

	@Override
	public String toString() {
		return "Redis " + this.version + " in container " + id() + " on " + this.host + ":" + this.port;
	}

	private void awaitNotRunning() {
		if (!Polling.await(() -> !Boolean.TRUE.equals(state().getRunning()), STATE_TIMEOUT)) {
			throw new IllegalStateException("The Redis container " + id() + " is still running");
		}
	}

	private ContainerState state() {
		return client().inspectContainerCmd(id()).exec().getState();
	}

	private String id() {
		return this.container.getContainerId();
	}

	private static DockerClient client() {
		return DockerClientFactory.instance().client();
	}

}
