package io.github.redislock.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.redislock.test.FaultProxy;
import io.github.redislock.test.RedisServer;
import io.github.redislock.test.RedisTest;

/**
 * A randomized fault test in the spirit of Jepsen, on a single Redis: three JVMs with
 * hot-key and storm threads lock a few names of every kind and work on a fenced resource,
 * while a {@link Nemesis} resets and closes their connections with many commands in
 * flight, adds latency, cuts a node off, pauses a node's JVM past its leases and restarts
 * Redis ({@link ProxyFaults}); then the faults stop and every acquisition must succeed
 * again. A {@link NemesisChecker} judges the history.
 * <p>
 * The schedule comes from a seed, printed on failure; run again with
 * {@code -Dredislock.faults.seed=<seed>} for the same schedule of faults (their timing
 * against the nodes' work still varies). The build applies one round of faults (about 25
 * seconds, a minute with start-up and checks); {@code -Dredislock.faults.duration=PT30M}
 * applies them for 30 minutes:
 * {@code ./mvnw -B verify -pl redis-lock-autoconfigure -am -Dtest='*NemesisTests' -Dsurefire.failIfNoSpecifiedTests=false -Dredislock.faults.duration=PT30M}
 * (add {@code -Dredislock.faults.cluster=true} for {@link ClusterNemesisTests} too).
 */
@RedisTest
class NemesisTests {

	@Test
	void locksKeepTheirPromisesWhileTheNemesisStrikes(@RedisTest.Dedicated RedisServer redis, RedisServer control,
			@TempDir Path directory) throws Exception {
		List<FaultProxy> proxies = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				proxies.add(FaultProxy.start(redis.host(), redis.port()));
			}
			new NemesisRun(control, directory, Duration.ZERO).run(
					(node) -> List.of("lock=" + proxies.get(node).host() + ":" + proxies.get(node).port(),
							"direct=" + redis.host() + ":" + redis.port()),
					(nodes) -> new ProxyFaults(proxies, nodes.processes(), redis, nodes.control()),
					() -> List.of(redis));
		}
		finally {
			proxies.forEach(FaultProxy::close);
		}
	}

}
