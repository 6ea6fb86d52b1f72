package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis Sentinel group for tests: a primary, its replica, and three sentinels that
 * monitor the primary under the name {@value #MASTER_NAME}, each a {@link RedisServer} on
 * a free loopback port that tests can kill, pause and restart.
 * <p>
 * The sentinels need two of them to agree (quorum 2), consider the primary down after
 * {@value #DOWN_AFTER_MILLIS} ms without an answer, and retry a failed failover after
 * twice {@value #FAILOVER_TIMEOUT_MILLIS} ms: a killed primary is usually replaced within
 * about five seconds, within about fifteen in the worst case. A primary that a busy
 * machine leaves unscheduled for a second or two is not failed over. {@link #primary()}
 * and {@link #replica()} follow failovers. A killed server that is
 * {@link RedisServer#restart() restarted} comes back empty and is turned into a replica
 * of the current primary by the sentinels.
 * <p>
 * Needs a {@code redis-server} binary (on the {@code PATH} or from embedded-redis), not
 * Testcontainers. Always {@link #close() close} the group; a JVM shutdown hook kills the
 * processes left over.
 */
public final class RedisSentinels implements AutoCloseable {

	/**
	 * The name the sentinels monitor the primary under: {@value}.
	 */
	public static final String MASTER_NAME = "mymaster";

	static final int QUORUM = 2;

	// Not 1 s: a busy machine may leave a healthy primary unscheduled that long
	static final int DOWN_AFTER_MILLIS = 3000;

	static final int FAILOVER_TIMEOUT_MILLIS = 3000;

	static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

	private static final int SENTINELS = 3;

	private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

	private final List<RedisServer> servers;

	private final List<RedisServer> sentinels;

	// The primary as last agreed on, for awaitFailover() to tell a new one from
	private volatile RedisServer knownPrimary;

	private RedisSentinels(List<RedisServer> servers, List<RedisServer> sentinels) {
		this.servers = List.copyOf(servers);
		this.sentinels = List.copyOf(sentinels);
		this.knownPrimary = servers.get(0);
	}

	/**
	 * Starts a primary, a replica of it, and three sentinels monitoring them, and waits
	 * (up to 30 seconds) until the group is {@link #awaitHealthy(Duration) healthy}.
	 * @return the running group
	 * @throws IllegalStateException if a server cannot be started or the group does not
	 * become healthy, saying what was still wrong
	 * @throws UnsupportedOperationException if Redis comes from Testcontainers
	 */
	public static RedisSentinels start() {
		List<RedisServer> servers = new ArrayList<>();
		List<RedisServer> sentinels = new ArrayList<>();
		try {
			RedisServer primary = RedisServer.start();
			servers.add(primary);
			servers.add(RedisServer.start("--replicaof", primary.host(), Integer.toString(primary.port())));
			// The sentinels ask the primary for its replicas when they connect, then only
			// every 10 s: the replica must be attached by then
			Polling.awaitNoProblem(() -> SentinelHealth.replicationProblem(primary.port(), servers), START_TIMEOUT,
					POLL_INTERVAL, "the replica is in sync");
			for (int i = 0; i < SENTINELS; i++) {
				sentinels.add(SentinelLauncher.start(MASTER_NAME, primary, servers.get(1)));
			}
			RedisSentinels group = new RedisSentinels(servers, sentinels);
			group.awaitHealthy(START_TIMEOUT);
			return group;
		}
		catch (RuntimeException ex) {
			sentinels.addAll(servers);
			RedisServer.closeAll(sentinels);
			throw ex;
		}
	}

	/**
	 * Returns the name the sentinels monitor the primary under, {@value #MASTER_NAME}.
	 * @return the master name
	 */
	public String masterName() {
		return MASTER_NAME;
	}

	/**
	 * Returns the current primary, as the first sentinel that answers reports it
	 * ({@code SENTINEL get-master-addr-by-name}).
	 * @return the primary
	 * @throws IllegalStateException if no sentinel answers
	 */
	public RedisServer primary() {
		RuntimeException failure = null;
		for (RedisServer sentinel : live(this.sentinels)) {
			try (RedisCli cli = sentinel.cli(QUERY_TIMEOUT)) {
				return server(primaryPort(cli, MASTER_NAME));
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
		}
		throw new IllegalStateException("No sentinel of " + this + " answers", failure);
	}

	/**
	 * Returns the current replica: the server that is not the {@link #primary()}, even
	 * while it is not running.
	 * @return the replica
	 * @throws IllegalStateException if no sentinel answers
	 */
	public RedisServer replica() {
		RedisServer primary = primary();
		return this.servers.get(primary.equals(this.servers.get(0)) ? 1 : 0);
	}

	/**
	 * Returns the three sentinels.
	 * @return the sentinels
	 */
	public List<RedisServer> sentinels() {
		return this.sentinels;
	}

	/**
	 * Returns the addresses of the sentinels, for a client to find the primary from.
	 * @return the addresses, {@code "127.0.0.1:port"}
	 */
	public List<String> sentinelAddresses() {
		return this.sentinels.stream().map((sentinel) -> sentinel.host() + ":" + sentinel.port()).toList();
	}

	/**
	 * Waits until the sentinels have replaced the primary: every running sentinel reports
	 * the same new primary, and that server has role {@code master}. The primary it waits
	 * to see replaced is the one agreed on when the group started or at the end of the
	 * last {@code awaitFailover} or {@link #awaitHealthy(Duration) awaitHealthy}, so it
	 * also returns at once for a failover that completed before the call.
	 * @param timeout how long to wait at most, at least 10 seconds to allow a second
	 * election
	 * @return the new primary
	 * @throws IllegalStateException on timeout, saying what the sentinels see
	 */
	public RedisServer awaitFailover(Duration timeout) {
		RedisServer previous = this.knownPrimary;
		Polling.awaitNoProblem(() -> failoverProblem(previous), timeout, POLL_INTERVAL,
				"the sentinels replace the primary " + previous.port());
		RedisServer primary = primary();
		this.knownPrimary = primary;
		return primary;
	}

	/**
	 * Waits until the group is healthy: the running sentinels agree on the primary, flag
	 * it as up, know the other sentinels, and see the replica, if running, in sync with
	 * it; the primary has role {@code master} and the running replica replicates it.
	 * @param timeout how long to wait at most
	 * @throws IllegalStateException on timeout, saying what was still wrong
	 */
	public void awaitHealthy(Duration timeout) {
		Polling.awaitNoProblem(
				() -> SentinelHealth.problem(MASTER_NAME, live(this.sentinels), SENTINELS, live(this.servers)), timeout,
				POLL_INTERVAL, "the sentinel group is healthy");
		this.knownPrimary = primary();
	}

	/**
	 * Kills the sentinels, then the primary and the replica, and deletes their working
	 * directories. Calling it again has no effect.
	 */
	@Override
	public void close() {
		List<RedisServer> all = new ArrayList<>(this.sentinels);
		all.addAll(this.servers);
		RedisServer.closeAll(all);
	}

	@Override
	public String toString() {
		return "Redis Sentinel group " + MASTER_NAME + " " + sentinelAddresses();
	}

	/**
	 * Asks a sentinel for the port of the primary.
	 * @param cli a connection to the sentinel
	 * @param masterName the name the primary is monitored under
	 * @return the port
	 */
	static int primaryPort(RedisCli cli, String masterName) {
		List<?> address = (List<?>) cli.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName);
		if (address == null) {
			throw new IllegalStateException("The sentinel does not monitor " + masterName);
		}
		return Integer.parseInt((String) address.get(1));
	}

	private String failoverProblem(RedisServer previous) {
		Integer primaryPort = null;
		for (RedisServer sentinel : live(this.sentinels)) {
			try (RedisCli cli = sentinel.cli(QUERY_TIMEOUT)) {
				int port = primaryPort(cli, MASTER_NAME);
				if (port == previous.port()) {
					return "sentinel " + sentinel.port() + " still reports the primary " + port;
				}
				if (primaryPort != null && primaryPort != port) {
					return "sentinels disagree on the primary: " + primaryPort + " and " + port;
				}
				primaryPort = port;
			}
		}
		if (primaryPort == null) {
			return "no sentinel is running";
		}
		try (RedisCli cli = server(primaryPort).cli(QUERY_TIMEOUT)) {
			String role = InfoFields.get(cli.info("replication"), "role");
			return "master".equals(role) ? null : "the new primary " + primaryPort + " has role " + role;
		}
	}

	private RedisServer server(int port) {
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException(
					"The sentinels report a primary on port " + port + " that is not one of " + this.servers));
	}

	private static List<RedisServer> live(List<RedisServer> servers) {
		return servers.stream().filter((server) -> server.isRunning() && !server.isPaused()).toList();
	}

}
