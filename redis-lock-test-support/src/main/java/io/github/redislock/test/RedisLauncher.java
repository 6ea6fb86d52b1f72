package io.github.redislock.test;

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
	 * Returns where the servers come from, for messages.
	 * @return a description such as the path of the binary
	 */
	String description();

}
