package io.github.redislock.integration;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.StaleFencingTokenException;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.fencing.FencedRedisTemplate;

/**
 * Main class of a JVM that runs for leadership with Spring Integration's
 * {@link LockRegistryLeaderInitiator} over a {@link DistributedLockRegistry}, run by
 * {@link LeaderElectionTests}. Arguments: host, port, role (the lock name), node name,
 * the fenced counter's key, the watchdog's lease and renew interval in milliseconds, and
 * the initiator's heart beat in milliseconds.
 *
 * <p>
 * Prints {@code STARTED} once it runs for leadership, {@code GRANTED <token>} when
 * elected (the token read on the initiator's thread, which holds the lock),
 * {@code REVOKED} when it learns it is no longer leader. While it believes it leads, it
 * adds 1 to the counter every 20 ms through {@link FencedRedisTemplate} with its token
 * and prints {@code WROTE <counter> <token>} (the counter numbers the accepted writes in
 * the order Redis ran them) or, when the fence refused, {@code STALE <token> <highest>}.
 */
final class LeaderNode {

	private static final long WRITE_INTERVAL_MILLIS = 20;

	private LeaderNode() {
	}

	public static void main(String[] args) throws InterruptedException {
		String role = args[2];
		String node = args[3];
		String counter = args[4];
		Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
		Duration renewInterval = Duration.ofMillis(Long.parseLong(args[6]));
		long heartBeatMillis = Long.parseLong(args[7]);
		LockOptions defaults = LockOptions.defaults();
		LockOptions options = new LockOptions(defaults.keyPrefix(), defaults.waitTime(), null, lease, renewInterval, 0,
				defaults.replicationTimeout());
		LettuceConnectionFactory factory = StandaloneLocks.connectionFactory(args[0], Integer.parseInt(args[1]));
		try (LockTemplate template = new LockTemplate(new RedisLockEngine(factory, options))) {
			FencedRedisTemplate fencedRedis = new FencedRedisTemplate(factory);
			LockFixture.warmUp(template);
			fencedRedis.increment(counter + ":warm-up", 1, 0);
			DistributedLockRegistry registry = new DistributedLockRegistry(template);
			// 0 while not leading: tokens start at 1
			AtomicLong leaderToken = new AtomicLong();
			DefaultCandidate candidate = new DefaultCandidate(node, role) {

				@Override
				public void onGranted(Context context) {
					super.onGranted(context);
					long token = registry.fencingToken(role);
					leaderToken.set(token);
					print("GRANTED " + token);
				}

				@Override
				public void onRevoked(Context context) {
					leaderToken.set(0);
					print("REVOKED");
					super.onRevoked(context);
				}

			};
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
			initiator.setHeartBeatMillis(heartBeatMillis);
			initiator.setBusyWaitMillis(50);
			initiator.start();
			print("STARTED");
			while (true) {
				long token = leaderToken.get();
				if (token != 0) {
					try {
						long written = fencedRedis.increment(counter, 1, token);
						print("WROTE " + written + " " + token);
					}
					catch (StaleFencingTokenException ex) {
						print("STALE " + ex.getToken() + " " + ex.getHighestToken());
					}
				}
				// The pace of a leader's work, not a wait for a condition
				Thread.sleep(WRITE_INTERVAL_MILLIS);
			}
		}
		finally {
			factory.destroy();
		}
	}

	private static synchronized void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
