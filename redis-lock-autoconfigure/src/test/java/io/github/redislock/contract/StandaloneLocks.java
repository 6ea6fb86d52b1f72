package io.github.redislock.contract;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

/**
 * Lock nodes on one Redis server, or on whatever listens at another address in front of
 * it, such as a {@code FaultProxy}.
 */
public final class StandaloneLocks extends LockFixture {

	private final RedisServer server;

	/**
	 * Nodes on the given server.
	 * @param server the server
	 */
	public StandaloneLocks(RedisServer server) {
		this.server = server;
	}

	/**
	 * A node that talks to the Redis at the address, such as a {@code FaultProxy} in
	 * front of the server.
	 * @param host the host
	 * @param port the port
	 * @param options the engine's options
	 * @param observer what the engine reports to
	 * @return the node's template
	 */
	public LockTemplate template(String host, int port, LockOptions options, LockObserver observer) {
		LettuceConnectionFactory factory = start(connectionFactory(host, port, COMMAND_TIMEOUT));
		closeLater(factory::destroy);
		return template(new RedisLockEngine(factory, options, observer));
	}

	/**
	 * A connection to the server, closed on {@link #close()}.
	 * @return the connection
	 */
	public RedisCli cli() {
		return closeLater(this.server.cli());
	}

	@Override
	public RedisServer serverOf(String name) {
		return this.server;
	}

	@Override
	public List<RedisServer> primaries() {
		return List.of(this.server);
	}

	@Override
	protected LettuceConnectionFactory createConnectionFactory(LettuceClientConfigurationBuilder client) {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				client.build());
	}

	/**
	 * A started connection factory on the server with Lettuce's default client
	 * configuration, as an application that configures nothing would have it, for tests
	 * that build their engines themselves; the caller destroys it.
	 * @param server the server
	 * @return the started factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisServer server) {
		return start(new LettuceConnectionFactory(new RedisStandaloneConfiguration(server.host(), server.port())));
	}

	/**
	 * A started connection factory on the server, for nodes that live outside a fixture
	 * such as those of child JVMs; the caller destroys it.
	 * @param server the server
	 * @param commandTimeout the command timeout
	 * @return the started factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisServer server, Duration commandTimeout) {
		return start(connectionFactory(server.host(), server.port(), commandTimeout));
	}

	/**
	 * A started connection factory on the Redis at the address, with the fixtures'
	 * {@linkplain #COMMAND_TIMEOUT command timeout}; the caller destroys it.
	 * @param host the host
	 * @param port the port
	 * @return the started factory
	 */
	public static LettuceConnectionFactory connectionFactory(String host, int port) {
		return start(connectionFactory(host, port, COMMAND_TIMEOUT));
	}

	private static LettuceConnectionFactory connectionFactory(String host, int port, Duration commandTimeout) {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
	}

	private static LettuceConnectionFactory start(LettuceConnectionFactory factory) {
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
