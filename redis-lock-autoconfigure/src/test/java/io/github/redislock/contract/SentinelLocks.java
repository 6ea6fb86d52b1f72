package io.github.redislock.contract;

import java.util.List;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisSentinels;
import io.github.redislock.test.RedisServer;

/**
 * Lock nodes that find the primary of a Sentinel group through its sentinels, and find it
 * again after a failover.
 * <p>
 * Each node is warmed up before a test uses it, as an application's would be by the time
 * it takes locks: the first command of a sentinel connection asks the sentinels for the
 * primary first, which on a busy machine can take longer than the short leases and waits
 * that tests time. The warm-up lock's keys are deleted again, so tests see only their
 * own.
 */
public final class SentinelLocks extends LockFixture {

	private static final String WARM_UP_KEYS = "*{warm-up}*";

	private final RedisSentinels group;

	/**
	 * Nodes on the given group.
	 * @param group the primary, its replica and their sentinels
	 */
	public SentinelLocks(RedisSentinels group) {
		this.group = group;
	}

	@Override
	public RedisServer serverOf(String name) {
		return this.group.primary();
	}

	@Override
	public List<RedisServer> primaries() {
		return List.of(this.group.primary());
	}

	@Override
	public List<RedisServer> servers() {
		return List.of(this.group.primary(), this.group.replica());
	}

	/**
	 * A configuration that finds the primary through the group's sentinels.
	 * @return the configuration
	 */
	public RedisSentinelConfiguration configuration() {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(this.group.masterName());
		this.group.sentinels().forEach((sentinel) -> configuration.sentinel(sentinel.host(), sentinel.port()));
		return configuration;
	}

	@Override
	protected LettuceConnectionFactory createConnectionFactory(LettuceClientConfigurationBuilder client) {
		return new LettuceConnectionFactory(configuration(), client.build());
	}

	@Override
	protected void prepare(LockTemplate template) {
		warmUp(template);
		try (RedisCli cli = this.group.primary().cli()) {
			for (String key : cli.keys(WARM_UP_KEYS)) {
				cli.command("DEL", key);
			}
		}
	}

}
