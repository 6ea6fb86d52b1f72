package io.github.redislock.test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides whether a sentinel group is ready for clients and for the next failover: the
 * sentinels agree on the primary, see it as up, know each other and see the replica in
 * sync, and the servers' own roles match.
 */
final class SentinelHealth {

	private SentinelHealth() {
	}

	/**
	 * Returns what is wrong with the group.
	 * @param masterName the name the sentinels monitor the primary under
	 * @param sentinels the sentinels that are running and not paused
	 * @param sentinelCount how many sentinels the group has, running or not
	 * @param servers the primary and the replica that are running and not paused
	 * @return the first problem found, or {@code null} if there is none
	 */
	static String problem(String masterName, List<RedisServer> sentinels, int sentinelCount,
			List<RedisServer> servers) {
		if (sentinels.isEmpty()) {
			return "no sentinel is running";
		}
		Integer primaryPort = null;
		for (RedisServer sentinel : sentinels) {
			try (RedisCli cli = sentinel.cli(RedisSentinels.QUERY_TIMEOUT)) {
				int port = RedisSentinels.primaryPort(cli, masterName);
				if (primaryPort == null) {
					primaryPort = port;
				}
				else if (primaryPort != port) {
					return "sentinels disagree on the primary: " + primaryPort + " and " + port;
				}
				Map<String, String> master = fields(cli.command("SENTINEL", "MASTER", masterName));
				if (!"master".equals(master.get("flags"))) {
					return "sentinel " + sentinel.port() + " flags the primary " + master.get("flags");
				}
				if (Integer.parseInt(master.get("num-other-sentinels")) < sentinelCount - 1) {
					return "sentinel " + sentinel.port() + " knows " + master.get("num-other-sentinels")
							+ " other sentinels";
				}
				String replicaProblem = replicaProblem(cli, masterName, port, servers);
				if (replicaProblem != null) {
					return "sentinel " + sentinel.port() + " sees " + replicaProblem;
				}
			}
		}
		return replicationProblem(primaryPort, servers);
	}

	private static String replicaProblem(RedisCli cli, String masterName, int primaryPort, List<RedisServer> servers) {
		List<?> replicas = (List<?>) cli.command("SENTINEL", "REPLICAS", masterName);
		for (RedisServer server : servers) {
			if (server.port() == primaryPort) {
				continue;
			}
			Map<String, String> replica = replicas.stream()
				.map(SentinelHealth::fields)
				.filter((fields) -> Integer.toString(server.port()).equals(fields.get("port")))
				.findFirst()
				.orElse(null);
			if (replica == null) {
				return "no replica " + server.port();
			}
			if (!"slave".equals(replica.get("flags")) || !"ok".equals(replica.get("master-link-status"))
					|| !Integer.toString(primaryPort).equals(replica.get("master-port"))) {
				return "replica " + server.port() + " with flags " + replica.get("flags") + ", link "
						+ replica.get("master-link-status") + ", primary " + replica.get("master-port");
			}
		}
		return null;
	}

	/**
	 * Returns what is wrong with the roles of the servers.
	 * @param primaryPort the port of the server that should be the primary
	 * @param servers the primary and the replica that are running and not paused
	 * @return the first problem found, or {@code null} if there is none
	 */
	static String replicationProblem(int primaryPort, List<RedisServer> servers) {
		boolean primaryFound = false;
		for (RedisServer server : servers) {
			try (RedisCli cli = server.cli(RedisSentinels.QUERY_TIMEOUT)) {
				String replication = cli.info("replication");
				String role = InfoFields.get(replication, "role");
				if (server.port() == primaryPort) {
					primaryFound = true;
					if (!"master".equals(role)) {
						return "the primary " + primaryPort + " has role " + role;
					}
				}
				else if (!"slave".equals(role)
						|| !Integer.toString(primaryPort).equals(InfoFields.get(replication, "master_port"))
						|| !"up".equals(InfoFields.get(replication, "master_link_status"))) {
					return "server " + server.port() + " has role " + role + ", primary "
							+ InfoFields.get(replication, "master_port") + ", link "
							+ InfoFields.get(replication, "master_link_status");
				}
			}
		}
		return primaryFound ? null : "the primary " + primaryPort + " is not running";
	}

	/**
	 * Reads a reply of alternating field names and values, as sent by
	 * {@code SENTINEL MASTER}.
	 * @param reply the reply
	 * @return the fields
	 */
	static Map<String, String> fields(Object reply) {
		List<?> list = (List<?>) reply;
		Map<String, String> fields = new HashMap<>();
		for (int i = 0; i + 1 < list.size(); i += 2) {
			fields.put((String) list.get(i), (String) list.get(i + 1));
		}
		return fields;
	}

}
