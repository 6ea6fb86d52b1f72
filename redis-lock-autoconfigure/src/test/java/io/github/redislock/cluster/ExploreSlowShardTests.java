package io.github.redislock.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;

class ExploreSlowShardTests {

	static RedisCluster cluster;

	@BeforeAll
	static void start() {
		cluster = RedisCluster.start();
		for (RedisServer node : cluster.nodes()) {
			try (RedisCli cli = node.cli()) {
				cli.command("CONFIG", "SET", "cluster-require-full-coverage", "no");
				cli.command("CONFIG", "SET", "cluster-replica-no-failover", "yes");
			}
		}
	}

	@AfterAll
	static void stop() {
		cluster.close();
	}

	static long t0 = System.nanoTime();

	static void log(String s) {
		System.out.printf("%6d ms %s%n", (System.nanoTime() - t0) / 1_000_000, s);
	}

	LettuceConnectionFactory factory(boolean adaptive) {
		ClusterTopologyRefreshOptions.Builder refresh = ClusterTopologyRefreshOptions.builder();
		if (adaptive) {
			refresh.enableAllAdaptiveRefreshTriggers().enablePeriodicRefresh(Duration.ofSeconds(1));
		}
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(8))
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh.build()).build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.seeds()),
				client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Test
	void explore() throws Exception {
		boolean adaptive = Boolean.getBoolean("adaptive");
		LockOptions options = LockOptions.defaults().withWatchdog(Duration.ofSeconds(3), Duration.ofSeconds(1));
		LockTemplate holder = new LockTemplate(factory(adaptive), options);
		LockTemplate warmOther = new LockTemplate(factory(adaptive), options);
		LettuceConnectionFactory coldFactory = factory(adaptive);
		List<String> names = ClusterLocks.namesOnEveryPrimary(cluster, "x", 3);
		warmOther.run("warm-" + names.get(1), () -> {
		});
		List<LockHandle> handles = new ArrayList<>();
		for (String name : names) {
			handles.add(holder.lock(name));
		}
		RedisServer paused = cluster.primaryForSlot(ClusterLocks.slotOf(names.get(0)));
		log("pausing " + paused);
		paused.pause();
		t0 = System.nanoTime();
		try {
			Thread t = new Thread(() -> {
				while (true) {
					StringBuilder b = new StringBuilder();
					for (int i = 0; i < names.size(); i++) {
						b.append(handles.get(i).isHeld() ? "H" : "-");
					}
					log("held: " + b);
					try {
						Thread.sleep(500);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			});
			t.setDaemon(true);
			t.start();
			Thread.sleep(1500);
			long s = System.nanoTime();
			try {
				handles.get(1).close();
				log("release healthy ok in " + (System.nanoTime() - s) / 1_000_000);
			}
			catch (Exception ex) {
				log("release healthy failed in " + (System.nanoTime() - s) / 1_000_000 + ": " + ex);
			}
			s = System.nanoTime();
			try {
				Optional<LockHandle> h = warmOther.tryLock(LockRequest.of(names.get(1)).waitTime(Duration.ZERO));
				log("warm tryLock " + h.isPresent() + " in " + (System.nanoTime() - s) / 1_000_000);
			}
			catch (Exception ex) {
				log("warm tryLock failed in " + (System.nanoTime() - s) / 1_000_000 + ": " + ex);
			}
			s = System.nanoTime();
			try {
				Optional<LockHandle> h = warmOther
					.tryLock(LockRequest.of(names.get(2)).waitTime(Duration.ofMillis(500)));
				log("warm tryLock held one " + h.isPresent() + " in " + (System.nanoTime() - s) / 1_000_000);
			}
			catch (Exception ex) {
				log("warm tryLock held one failed in " + (System.nanoTime() - s) / 1_000_000 + ": " + ex);
			}
			s = System.nanoTime();
			try {
				LockTemplate cold = new LockTemplate(coldFactory, options);
				Optional<LockHandle> h = cold.tryLock(LockRequest.of(names.get(4)).waitTime(Duration.ZERO));
				log("cold tryLock " + h.isPresent() + " in " + (System.nanoTime() - s) / 1_000_000);
			}
			catch (Exception ex) {
				log("cold tryLock failed in " + (System.nanoTime() - s) / 1_000_000 + ": " + ex);
			}
			Thread.sleep(6000);
			t.interrupt();
		}
		finally {
			paused.resume();
		}
	}

}
