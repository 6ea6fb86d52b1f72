package io.github.redislock.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The permits scenario's checker: a Redis counter of the threads inside the critical
 * section, which every holder increments when granted and decrements before it releases.
 * Kept in Redis, it counts the holders of every JVM at once, so that the highest value an
 * {@code INCR} answered is the most holders there ever were. Its own raw Lettuce
 * connection keeps it out of the lock client's way and the same for every implementation.
 */
final class Holders implements AutoCloseable {

	static final String KEY = "benchmarks:holders";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	Holders(String host, int port) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
	}

	/**
	 * Count a holder in.
	 * @return the holders inside now, this one included
	 */
	long enter() {
		return this.commands.incr(KEY);
	}

	/** Count a holder out, before it releases. */
	void leave() {
		this.commands.decr(KEY);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
