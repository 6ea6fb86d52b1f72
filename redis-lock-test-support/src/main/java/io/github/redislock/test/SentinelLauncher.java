package io.github.redislock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Starts one sentinel of a {@link RedisSentinels} group: {@code redis-server} in sentinel
 * mode, with a configuration file of its own in its working directory, since a sentinel
 * rewrites that file to remember what it learns.
 */
final class SentinelLauncher {

	private static final int INFO_PERIOD_MILLIS = 1000;

	private static final int PUBLISH_PERIOD_MILLIS = 500;

	private SentinelLauncher() {
	}

	/**
	 * Starts a sentinel monitoring a primary.
	 * @param masterName the name to monitor the primary under
	 * @param primary the primary
	 * @param replica its replica, announced up front so that the sentinel knows it before
	 * it first asks the primary
	 * @return the running sentinel
	 */
	static RedisServer start(String masterName, RedisServer primary, RedisServer replica) {
		Path directory = ShutdownCleanup.createDirectory();
		Path config = directory.resolve("sentinel.conf");
		String text = String.join("\n",
				"sentinel monitor " + masterName + " " + primary.host() + " " + primary.port() + " "
						+ RedisSentinels.QUORUM,
				"sentinel down-after-milliseconds " + masterName + " " + RedisSentinels.DOWN_AFTER_MILLIS,
				"sentinel failover-timeout " + masterName + " " + RedisSentinels.FAILOVER_TIMEOUT_MILLIS,
				"sentinel parallel-syncs " + masterName + " 1",
				"sentinel known-replica " + masterName + " " + replica.host() + " " + replica.port(), "");
		try {
			Files.writeString(config, text);
		}
		catch (IOException ex) {
			ShutdownCleanup.deleteDirectory(directory);
			throw new UncheckedIOException("Could not write " + config, ex);
		}
		RedisServer sentinel = RedisServer.start(directory, config.toString(), "--sentinel");
		if (ClusterFormation.majorVersion(sentinel.version()) >= 7) {
			speedUp(sentinel);
		}
		return sentinel;
	}

	/**
	 * Makes a sentinel ask the servers for their roles every second instead of every 10
	 * s, and greet the other sentinels every 500 ms instead of 2 s, so that it sees a
	 * restarted server and turns it into a replica within seconds rather than after 20.
	 * Redis 6.2 has no {@code SENTINEL DEBUG} and keeps the defaults.
	 */
	private static void speedUp(RedisServer sentinel) {
		try (RedisCli cli = sentinel.cli()) {
			cli.command("SENTINEL", "DEBUG", "INFO-PERIOD", Integer.toString(INFO_PERIOD_MILLIS), "PUBLISH-PERIOD",
					Integer.toString(PUBLISH_PERIOD_MILLIS));
		}
		catch (RuntimeException ex) {
			sentinel.close();
			throw ex;
		}
	}

}
