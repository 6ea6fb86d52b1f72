package io.github.redislock.faults;

import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockRequest;
import io.github.redislock.LockTemplate;
import io.github.redislock.StaleFencingTokenException;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.fencing.FencedRedisTemplate;

/**
 * Main class of a JVM that takes a lock with a fixed lease, then writes the resource the
 * lock protects once told to, with its token, as a holder does whose JVM paused between
 * its read and its write; run by {@link StaleWriteTests}. Arguments: host, port, lock
 * name, resource key, go key, lease in milliseconds, and {@code plain} or {@code fenced}.
 * Prints {@code TOKEN <fencing token>} and {@code HELD} once it holds the lock, then
 * waits for the go key to exist in Redis, so that the write comes after the test's,
 * whatever the timing. Then it writes {@code A} to the resource, plainly or through
 * {@link FencedRedisTemplate}, and prints {@code WROTE} or
 * {@code STALE <token> <highest token>}, then what closing the handle said
 * ({@code LOST <token>} or {@code RELEASED}), and {@code DONE}.
 */
final class StaleWriterNode {

	private StaleWriterNode() {
	}

	public static void main(String[] args) throws InterruptedException {
		String name = args[2];
		String resource = args[3];
		String go = args[4];
		Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
		boolean fenced = args[6].equals("fenced");
		LettuceConnectionFactory factory = StandaloneLocks.connectionFactory(args[0], Integer.parseInt(args[1]));
		try (LockTemplate template = new LockTemplate(new RedisLockEngine(factory, LockOptions.defaults()))) {
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			FencedRedisTemplate fencedRedis = new FencedRedisTemplate(factory);
			// Connected and the scripts loaded before the lease starts, so that it is
			// the pause, not a cold start, that outlasts it
			LockFixture.warmUp(template);
			fencedRedis.set(resource + ":warm-up", "-", 0);
			LockHandle handle = template.lock(LockRequest.of(name).leaseTime(lease));
			print("TOKEN " + handle.fencingToken());
			print("HELD");
			while (redis.opsForValue().get(go) == null) {
				Thread.sleep(10);
			}
			try {
				if (fenced) {
					fencedRedis.set(resource, "A", handle.fencingToken());
				}
				else {
					redis.opsForValue().set(resource, "A");
				}
				print("WROTE");
			}
			catch (StaleFencingTokenException ex) {
				print("STALE " + ex.getToken() + " " + ex.getHighestToken());
			}
			try {
				handle.close();
				print("RELEASED");
			}
			catch (LockLostException ex) {
				print("LOST " + ex.getFencingToken());
			}
			print("DONE");
		}
		finally {
			factory.destroy();
		}
	}

	private static void print(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
