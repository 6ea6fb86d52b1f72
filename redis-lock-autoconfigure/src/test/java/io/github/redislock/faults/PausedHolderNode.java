package io.github.redislock.faults;

import java.time.Duration;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockOptions;
import io.github.redislock.LockTemplate;
import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.engine.RedisLockEngine;

/**
 * Main class of a JVM that takes a lock renewed by the watchdog and holds it until its
 * handle reports it lost, as a process paused past its lease does once it resumes; run by
 * {@link LongPauseTests}. Arguments: host, port, lock name, watchdog lease and renewal
 * interval in milliseconds. Prints {@code TOKEN <fencing token>} and {@code HELD} once it
 * holds the lock; after the loss {@code LOST}, the latest token Redis granted for the
 * lock ({@code LATEST <token>}), whether its own is older ({@code OLDER true}), and what
 * closing the handle said ({@code CLOSE LockLostException
 * <token>}).
 */
final class PausedHolderNode {

	private PausedHolderNode() {
	}

	public static void main(String[] args) throws InterruptedException {
		String key = args[2];
		Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
		Duration renewInterval = Duration.ofMillis(Long.parseLong(args[4]));
		LettuceConnectionFactory factory = StandaloneLocks.connectionFactory(args[0], Integer.parseInt(args[1]));
		try (LockTemplate template = new LockTemplate(
				new RedisLockEngine(factory, LockOptions.defaults().withWatchdog(lease, renewInterval)))) {
			// Connected and the scripts loaded before the lock is taken, as in a running
			// application: a cold first acquisition can outlast a short lease (see
			// NetworkFaultTests#slowGrantIsRenewedBeforeItsLeaseRunsOut).
			LockFixture.warmUp(template);
			LockHandle handle = template.lock(key);
			print("TOKEN " + handle.fencingToken());
			print("HELD");
			while (handle.isHeld()) {
				Thread.sleep(20);
			}
			print("LOST");
			// What a resource that checks fencing tokens would compare against: the token
			// the lock key keeps, its successor's or the last one released.
			Long latest = LockKeyValues
				.token(new StringRedisTemplate(factory).opsForValue().get("redis-lock:{" + key + "}"));
			print("LATEST " + latest);
			print("OLDER " + (latest != null && handle.fencingToken() < latest));
			try {
				handle.close();
				print("CLOSE released");
			}
			catch (LockLostException ex) {
				print("CLOSE LockLostException " + ex.getFencingToken());
			}
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
