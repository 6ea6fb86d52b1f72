package io.github.redislock.fencing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.ClusterLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fenced writes on a Redis Cluster of three primaries and three replicas, with resource
 * keys on every primary, half of them with a hash tag.
 */
class FencedRedisClusterTests extends FencedRedisContract {

	@RegisterExtension
	static final Topology<RedisCluster, ClusterLocks> topology = Topology.cluster();

	private static List<String> keys;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	@BeforeAll
	static void findKeysOnEveryPrimary() {
		keys = keysOnEveryPrimary(2);
	}

	@Override
	protected RedisConnectionFactory connectionFactory() {
		for (RedisServer primary : topology.servers().primaries()) {
			try (RedisCli cli = primary.cli()) {
				cli.flushAll();
			}
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(topology.servers().seeds()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		return factory;
	}

	@Override
	protected List<String> keys() {
		return keys;
	}

	@AfterEach
	void closeFactories() {
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void keysOfTheseTestsHitEveryPrimary() {
		assertThat(keys.stream().map((key) -> topology.servers().primaryForSlot(RedisCluster.slot(key))).distinct())
			.hasSameElementsAs(topology.servers().primaries());
	}

	/**
	 * Keys {@code perPrimary} to a primary, in turns over the primaries, alternately
	 * {@code stock:i} and {@code {product:i}:stock}: the first three hit three primaries,
	 * and each kind of write of the concurrent test (the index modulo 3) gets keys of
	 * both forms.
	 */
	private static List<String> keysOnEveryPrimary(int perPrimary) {
		Map<RedisServer, List<String>> byPrimary = new LinkedHashMap<>();
		topology.servers().primaries().forEach((primary) -> byPrimary.put(primary, new ArrayList<>()));
		for (int i = 0; byPrimary.values().stream().anyMatch((found) -> found.size() < perPrimary); i++) {
			String key = (i % 2 == 0) ? "stock:" + i : "{product:" + i + "}:stock";
			List<String> found = byPrimary.get(topology.servers().primaryForSlot(RedisCluster.slot(key)));
			if (found.size() < perPrimary) {
				found.add(key);
			}
		}
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < perPrimary; i++) {
			for (List<String> ofPrimary : byPrimary.values()) {
				keys.add(ofPrimary.get(i));
			}
		}
		return keys;
	}

}
