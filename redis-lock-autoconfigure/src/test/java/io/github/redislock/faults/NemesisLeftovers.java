package io.github.redislock.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.core.ConditionTimeoutException;

import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.awaitility.Awaitility.await;

/**
 * Finds what still holds or queues for a lock in Redis once every node released and
 * closed: lock keys, fair queues, read/write holders, writer intents and permit holders.
 * Fence keys, the tombstones of released exclusive locks and other bookkeeping that
 * outlives a lock on purpose do not count.
 */
final class NemesisLeftovers {

	private static final List<String> LOCKING_SUFFIXES = List.of("}", "}:queue", "}:queue:deadlines", "}:rw",
			"}:rw:writer", "}:permits");

	private NemesisLeftovers() {
	}

	/**
	 * Waits until nothing is locked in Redis.
	 * @param servers the lock Redis, or the primaries of a cluster
	 * @param timeout how long to wait at most
	 * @return what is still locked after the timeout; empty when nothing is
	 */
	static List<String> find(List<RedisServer> servers, Duration timeout) {
		AtomicReference<List<String>> locked = new AtomicReference<>();
		try {
			await().atMost(timeout).until(() -> {
				locked.set(servers.stream().flatMap((server) -> locked(server).stream()).toList());
				return locked.get().isEmpty();
			});
			return List.of();
		}
		catch (ConditionTimeoutException ex) {
			return locked.get();
		}
	}

	/** Whether a permits hash lists a holder, not only the waiting JVMs' notes. */
	private static boolean holdsPermits(RedisCli cli, String key) {
		return ((List<?>) cli.command("HKEYS", key)).stream()
			.anyMatch((field) -> !String.valueOf(field).startsWith("~"));
	}

	private static List<String> locked(RedisServer server) {
		try (RedisCli cli = server.cli()) {
			return cli.keys(NemesisSettings.KEY_PREFIX + "*")
				.stream()
				.filter((key) -> LOCKING_SUFFIXES.stream().anyMatch(key::endsWith))
				.filter((key) -> !key.endsWith("}") || !LockKeyValues.isTombstone(cli.get(key)))
				.filter((key) -> !key.endsWith("}:permits") || holdsPermits(cli, key))
				.map((key) -> key + " (pttl " + cli.pttl(key) + " ms)")
				.toList();
		}
	}

}
