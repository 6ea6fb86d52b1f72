package io.github.redislock.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.api.sync.RedisCommands;
import reactor.core.publisher.Mono;

/**
 * The hot-key critical section: a Redis counter read with {@code GET} and written back
 * with {@code SET}, deliberately not atomic, so that any overlap of two holders loses an
 * update. Its own raw Lettuce connection keeps it out of the lock client's way and the
 * same for every implementation; the reactive rows send the same two commands through the
 * connection's reactive API.
 */
final class Counter implements AutoCloseable {

	static final String KEY = "benchmarks:counter";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final RedisReactiveCommands<String, String> reactive;

	Counter(String host, int port) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
		this.reactive = this.connection.reactive();
	}

	/** Read the counter, as a reader under a read lock does. */
	long read() {
		String value = this.commands.get(KEY);
		return (value != null) ? Long.parseLong(value) : 0;
	}

	void increment() {
		String value = this.commands.get(KEY);
		this.commands.set(KEY, Long.toString((value != null) ? Long.parseLong(value) + 1 : 1));
	}

	/**
	 * {@link #increment()} without blocking: the {@code SET} is sent when the {@code GET}
	 * has answered.
	 */
	Mono<Void> incrementReactive() {
		return this.reactive.get(KEY)
			.map((value) -> Long.parseLong(value) + 1)
			.defaultIfEmpty(1L)
			.flatMap((next) -> this.reactive.set(KEY, Long.toString(next)))
			.then();
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
