package io.github.redislock.test;

import java.nio.file.Path;
import java.util.List;

/**
 * Starts Redis servers from one source: a {@code redis-server} binary or a container.
 */
interface RedisLauncher {

	/**
	 * Starts a server on a free port and waits until it answers.
	 * @param extraConfigArgs more {@code redis-server} arguments, for example
	 * {@code "--notify-keyspace-events", "Ex"}
	 * @return the running server
	 */
	RedisBackend launch(List<String> extraConfigArgs);

	/**
	 * Starts a server on a free port of this machine, in a given working directory, for
	 * servers that need files of their own (a sentinel's configuration file) or a cluster
	 * bus that other local servers reach.
	 * @param directory the working directory, owned by the server from now on: deleted
	 * when it is closed or fails to start
	 * @param args the {@code redis-server} arguments; the first one is the path of a
	 * configuration file if it does not start with {@code -}
	 * @return the running server
	 * @throws UnsupportedOperationException if the servers of this launcher do not run as
	 * processes of this machine
	 */
	RedisBackend launch(Path directory, List<String> args);

	/**
	 * Returns where the servers come from, for messages.
	 * @return a description such as the path of the binary
	 */
	String description();

}
