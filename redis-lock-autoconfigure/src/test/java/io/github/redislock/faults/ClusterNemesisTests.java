package io.github.redislock.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import io.github.redislock.test.RedisCluster;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

/**
 * The randomized fault test of {@link NemesisTests} on a Redis Cluster of three primaries
 * and three replicas: while the nodes work, the {@link Nemesis} closes clients'
 * connections with many commands in flight, stops a primary (up to its replica taking
 * over), moves the slot of a hot lock, fails a primary over to its replica, restarts a
 * primary without its data and pauses a node's JVM past its leases
 * ({@link ClusterFaults}). Same properties as {@link NemesisTests}.
 * <p>
 * Six Redis processes and three JVMs take about a minute of a small machine on top of the
 * single-Redis run, so the build leaves it out; {@code -Dredislock.faults.cluster=true}
 * runs it, for example with {@code -Dredislock.faults.duration=PT30M}.
 */
@RedisTest
@EnabledIfSystemProperty(named = ClusterNemesisTests.ENABLED_PROPERTY, matches = "true")
class ClusterNemesisTests {

	static final String ENABLED_PROPERTY = "redislock.faults.cluster";

	@Test
	void locksKeepTheirPromisesWhileTheNemesisStrikesTheCluster(RedisServer control, @TempDir Path directory)
			throws Exception {
		try (RedisCluster cluster = RedisCluster.start()) {
			String seeds = String.join(",", cluster.seeds());
			new NemesisRun(control, directory, Duration.ZERO).run((node) -> List.of("cluster=" + seeds),
					(nodes) -> new ClusterFaults(cluster, nodes.processes(), nodes.control()), cluster::primaries);
		}
	}

}
