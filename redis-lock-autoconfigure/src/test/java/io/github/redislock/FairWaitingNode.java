package io.github.redislock;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.engine.RedisLockEngine;
import io.github.redislock.test.RedisCli;

/**
 * Main class of a JVM that asks for a fair lock when told to; run by
 * {@link FairLockTests}. Arguments: host, port, lock name, the Redis list it takes
 * commands from, and the Redis list it records grants in. Commands arrive through Redis
 * rather than standard input, which a child JVM does not get, and each is
 * {@code lock <label> <wait millis>}: a new thread asks for the lock and, once granted,
 * appends {@code <label> <fencing token>} to the grants list while it holds the lock, or
 * {@code timeout <label>} when its wait ran out. Prints {@code READY} once it listens.
 */
final class FairWaitingNode {

	private FairWaitingNode() {
	}

	public static void main(String[] args) {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		String key = args[2];
		String commands = args[3];
		String grants = args[4];
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder().commandTimeout(LockFixture.COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		LockTemplate template = new LockTemplate(new RedisLockEngine(factory, LockOptions.defaults()));
		// A first fair lock connects, loads the scripts and the classes of its path: done
		// here, it does not eat into the wait of the first command on a busy machine.
		template.lock(LockRequest.of(key + ":warm-up").fair(true)).close();
		try (RedisCli cli = new RedisCli(host, port)) {
			System.out.println("READY");
			System.out.flush();
			while (true) {
				// Blocks for a second at most, well within the client's read timeout.
				if (cli.command("BLPOP", commands, "1") instanceof List<?> reply) {
					String[] command = ((String) reply.get(1)).split(" ");
					String label = command[1];
					Duration waitTime = Duration.ofMillis(Long.parseLong(command[2]));
					new Thread(() -> ask(template, key, label, waitTime, host, port, grants), label).start();
				}
			}
		}
	}

	private static void ask(LockTemplate template, String key, String label, Duration waitTime, String host, int port,
			String grants) {
		try (RedisCli cli = new RedisCli(host, port)) {
			try (LockHandle handle = template.lock(LockRequest.of(key).fair(true).waitTime(waitTime))) {
				// Recorded under the lock, so the list's order is the order of the
				// grants.
				cli.command("RPUSH", grants, label + " " + handle.fencingToken());
			}
			catch (LockTimeoutException ex) {
				cli.command("RPUSH", grants, "timeout " + label);
			}
		}
	}

}
