package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.engine.RedisLockEngine;

/**
 * Main class of a JVM that takes a lock and holds it, renewed by the watchdog, until it
 * is killed; run by {@link LockFaultTests} and {@link KilledHolderTests}. Arguments:
 * host, port, lock name, watchdog lease and renewal interval in milliseconds, and
 * optionally a {@link LockMode} (exclusive when absent) and, for permits, the limit.
 * Prints {@code TOKEN <fencing token>}, then {@code HELD} once it holds the lock.
 */
final class HoldingNode {

	private HoldingNode() {
	}

	public static void main(String[] args) throws InterruptedException {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		String key = args[2];
		Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
		Duration renewInterval = Duration.ofMillis(Long.parseLong(args[4]));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(LockFixture.COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		LockTemplate template = new LockTemplate(
				new RedisLockEngine(factory, LockOptions.defaults().withWatchdog(lease, renewInterval)));
		LockMode mode = (args.length > 5) ? LockMode.valueOf(args[5]) : LockMode.EXCLUSIVE;
		int limit = (args.length > 6) ? Integer.parseInt(args[6]) : 1;
		LockHandle handle = template.lock(LockRequest.of(key).mode(mode).limit(limit));
		System.out.println("TOKEN " + handle.fencingToken());
		System.out.println("HELD");
		System.out.flush();
		// Hold until killed: a crash releases nothing and publishes nothing.
		new CountDownLatch(1).await();
	}

}
