package io.github.redislock.faults;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LockDiagnostics;
import io.github.redislock.contract.LockKeyValues;

/**
 * Looks into Redis when an acquisition of a node timed out. Finds whether a grant of the
 * node's own that none of its threads holds stood in its way: a lock key, read/write
 * holder or writer intent carrying an owner token of this node's engine while the node's
 * registry of holds and waiters says nobody of this node has or wants it. That is what an
 * acquisition refused by its own grant leaves behind (a replayed acquire taken for
 * someone else's, or a grant nobody releases). Reads Redis directly, not through the
 * fault proxy.
 */
final class LockInspector {

	private static final int SAMPLES = 4;

	private final StringRedisTemplate redis;

	private final String ownerPrefix;

	/** Holds and writers waiting, per lock name and family ("lock", "rw", "writer"). */
	private final ConcurrentHashMap<String, AtomicInteger> local = new ConcurrentHashMap<>();

	/**
	 * @param redis a template on the lock Redis, bypassing the fault proxy
	 * @param instanceId the instance id of the node's engine, the first part of its owner
	 * tokens
	 */
	LockInspector(StringRedisTemplate redis, String instanceId) {
		this.redis = redis;
		this.ownerPrefix = instanceId + ":";
	}

	/** Counts a hold (or a writer's wait) of the calling thread in or out. */
	void count(String key, String kind, boolean waiting, int delta) {
		if (!waiting) {
			counter(key, kind.equals("R") || kind.equals("W") ? "rw" : "lock").addAndGet(delta);
		}
		if (kind.equals("W")) {
			counter(key, "writer").addAndGet(delta);
		}
	}

	/**
	 * Grants of this node's own that nobody of this node holds or waits for, now and
	 * still after a while.
	 * @param key the lock name that timed out
	 * @param kind its kind
	 * @param persistenceMillis how long an orphan must stay to count
	 * @return a description of each orphan, by Redis key; empty when none
	 */
	Map<String, String> orphans(String key, String kind, long persistenceMillis) throws InterruptedException {
		Map<String, String> orphans = inspect(key, kind);
		// Sampled several times: a lock handed between two threads of this node keeps
		// its owner token, and neither counts it for an instant.
		for (int sample = 1; sample <= SAMPLES && !orphans.isEmpty(); sample++) {
			Thread.sleep(persistenceMillis / SAMPLES);
			Map<String, String> again = inspect(key, kind);
			orphans.entrySet().removeIf((entry) -> !entry.getValue().equals(again.get(entry.getKey())));
		}
		orphans.replaceAll(
				(where, owner) -> owner + " (pttl " + this.redis.getExpire(where, TimeUnit.MILLISECONDS) + " ms)");
		return orphans;
	}

	private Map<String, String> inspect(String key, String kind) {
		Map<String, String> found = new LinkedHashMap<>();
		String base = NemesisSettings.KEY_PREFIX + "{" + key + "}";
		if (!kind.equals("R") && !kind.equals("W")) {
			String owner = LockKeyValues.holder(this.redis.opsForValue().get(base));
			if (isOwn(owner) && count(key, "lock") == 0) {
				found.put(base, owner);
			}
			return found;
		}
		String intent = this.redis.opsForValue().get(base + ":rw:writer");
		if (isOwn(intent) && count(key, "writer") == 0) {
			found.put(base + ":rw:writer", intent);
		}
		if (count(key, "rw") == 0) {
			this.redis.<String, String>opsForHash().entries(base + ":rw").forEach((field, value) -> {
				if (isOwn(field)) {
					found.put(base + ":rw", field);
				}
			});
		}
		return found;
	}

	/**
	 * Describes the lock in Redis (holder, fair queue with deadlines, read/write holders
	 * and writer intent, with times to live) and in the engine, as evidence.
	 * @param key the lock name
	 * @param engine the diagnostics of the node's engine
	 * @return the description
	 */
	String state(String key, LockDiagnostics engine) {
		String base = NemesisSettings.KEY_PREFIX + "{" + key + "}";
		StringBuilder state = new StringBuilder();
		for (String suffix : List.of("", ":queue", ":queue:deadlines", ":rw", ":rw:writer")) {
			String name = base + suffix;
			Object value = switch (String.valueOf(this.redis.type(name).code())) {
				case "string" -> this.redis.opsForValue().get(name);
				case "list" -> this.redis.opsForList().range(name, 0, -1);
				case "zset" -> this.redis.opsForZSet()
					.rangeWithScores(name, 0, -1)
					.stream()
					.map((entry) -> entry.getValue() + "@" + entry.getScore().longValue())
					.toList();
				case "hash" -> this.redis.opsForHash().entries(name);
				default -> null;
			};
			if (value != null) {
				state.append(name)
					.append('=')
					.append(value)
					.append("(pttl ")
					.append(this.redis.getExpire(name, TimeUnit.MILLISECONDS))
					.append(") ");
			}
		}
		return state.append("at ")
			// The machine's clock, which Redis also uses for the queue deadlines.
			.append(System.currentTimeMillis())
			.append("; engine: subscription ")
			.append(engine.subscriptionStatus())
			.append(", channels ")
			.append(engine.subscribedChannelCount())
			.append(", waiters ")
			.append(engine.waiterCount())
			.append(", held ")
			.append(engine.heldCount())
			.toString();
	}

	private boolean isOwn(String owner) {
		return owner != null && owner.startsWith(this.ownerPrefix);
	}

	private int count(String key, String family) {
		return counter(key, family).get();
	}

	private AtomicInteger counter(String key, String family) {
		return this.local.computeIfAbsent(key + " " + family, (name) -> new AtomicInteger());
	}

}
