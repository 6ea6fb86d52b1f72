package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.LockObserver;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisSentinels;

/**
 * Lock templates for fault tests, each with an engine and a connection factory of its own
 * (a "node"), closed together and observed through their engines'
 * {@linkplain #diagnostics(LockTemplate) diagnostics}. Command timeouts are short so that
 * faults surface within seconds.
 */
final class FaultLocks implements AutoCloseable {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final Map<LockTemplate, LockDiagnostics> diagnostics = new IdentityHashMap<>();

	/**
	 * A node that talks to the Redis at the address, such as a {@code FaultProxy}.
	 */
	LockTemplate template(String host, int port, LockOptions options, LockObserver observer) {
		return template(new RedisStandaloneConfiguration(host, port), options, observer);
	}

	/**
	 * A node that finds the primary of the group through its sentinels, and finds it
	 * again after a failover.
	 */
	LockTemplate template(RedisSentinels group, LockOptions options, LockObserver observer) {
		return template(sentinelConfiguration(group), options, observer);
	}

	private LockTemplate template(RedisConfiguration configuration, LockOptions options, LockObserver observer) {
		LettuceConnectionFactory factory = connectionFactory(configuration);
		this.resources.add(factory::destroy);
		RedisLockEngine engine = new RedisLockEngine(factory, options, observer);
		LockTemplate template = new LockTemplate(engine);
		this.resources.add(template);
		this.diagnostics.put(template, engine.diagnostics());
		return template;
	}

	/** The diagnostics of the engine of a template made here. */
	LockDiagnostics diagnostics(LockTemplate template) {
		LockDiagnostics found = this.diagnostics.get(template);
		if (found == null) {
			throw new IllegalArgumentException(template + " was not made by this fixture");
		}
		return found;
	}

	/**
	 * Connects the node and loads its scripts with a lock on a key of its own, under a
	 * lease long enough that a cold first acquisition cannot outlast it.
	 */
	static void warmUp(LockTemplate template) {
		template.run(LockRequest.of("warm-up").leaseTime(Duration.ofMinutes(1)), () -> {
		});
	}

	static LettuceConnectionFactory connectionFactory(RedisConfiguration configuration) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static RedisSentinelConfiguration sentinelConfiguration(RedisSentinels group) {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(group.masterName());
		group.sentinels().forEach((sentinel) -> configuration.sentinel(sentinel.host(), sentinel.port()));
		return configuration;
	}

	@Override
	public void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

}
