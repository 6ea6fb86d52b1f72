package io.github.redislock.test;

import java.util.ArrayList;
import java.util.List;

/**
 * Moves one hash slot and its keys between two primaries with the protocol of the Redis
 * Cluster specification, as {@code redis-cli --cluster reshard} does. While the keys
 * move, clients asking the source for a key already moved get {@code -ASK} to the target.
 */
final class SlotMigration {

	private static final int BATCH = 100;

	private static final String MIGRATE_TIMEOUT_MILLIS = "5000";

	private SlotMigration() {
	}

	/**
	 * Moves the slot. Returns once every primary was told the new owner; replicas learn
	 * it from them.
	 * @param slot the slot
	 * @param source the primary serving it now
	 * @param sourceId the node id of the source
	 * @param target the primary to serve it
	 * @param targetId the node id of the target
	 * @param otherPrimaries the running primaries that are neither source nor target
	 */
	static void move(int slot, RedisServer source, String sourceId, RedisServer target, String targetId,
			List<RedisServer> otherPrimaries) {
		String slotText = Integer.toString(slot);
		try (RedisCli sourceCli = source.cli(); RedisCli targetCli = target.cli()) {
			// Importing first: the source may send -ASK to the target as soon as it
			// migrates
			targetCli.command("CLUSTER", "SETSLOT", slotText, "IMPORTING", sourceId);
			sourceCli.command("CLUSTER", "SETSLOT", slotText, "MIGRATING", targetId);
			List<?> keys;
			while (!(keys = (List<?>) sourceCli.command("CLUSTER", "GETKEYSINSLOT", slotText, Integer.toString(BATCH)))
				.isEmpty()) {
				List<String> migrate = new ArrayList<>(List.of("MIGRATE", target.host(),
						Integer.toString(target.port()), "", "0", MIGRATE_TIMEOUT_MILLIS, "REPLACE", "KEYS"));
				keys.forEach((key) -> migrate.add((String) key));
				sourceCli.command(migrate.toArray(new String[0]));
			}
			// The target first, so that it owns the slot before the source stops
			// redirecting
			// with -ASK and starts redirecting with -MOVED
			targetCli.command("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
			sourceCli.command("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
		}
		for (RedisServer primary : otherPrimaries) {
			try (RedisCli cli = primary.cli(RedisCluster.QUERY_TIMEOUT)) {
				cli.command("CLUSTER", "SETSLOT", slotText, "NODE", targetId);
			}
		}
	}

}
