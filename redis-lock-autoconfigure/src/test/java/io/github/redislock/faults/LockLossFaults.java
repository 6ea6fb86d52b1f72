package io.github.redislock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import io.github.redislock.contract.LockKeyValues;
import io.github.redislock.faults.Nemesis.Fault;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisErrorReplyException;
import io.github.redislock.test.RedisServer;

/**
 * Faults that take locks away from their holders, for {@link LockLossNemesisTests}:
 * <ul>
 * <li>{@code DEL}: a burst of deletes of hot lock keys, the ones held preferred;</li>
 * <li>{@code FLUSHALL}: every key gone, fence keys included;</li>
 * <li>{@code RESTART}: Redis stopped or killed and started again, without its data
 * ({@link ProxyFaults});</li>
 * <li>{@code SLEEP}: {@code DEBUG SLEEP} of 0.2 to 1 s: every command waits, some past
 * the nodes' command timeout, and leases run on in Redis's clock;</li>
 * <li>{@code RESET}: the replies of the nodes' connections held, then the connections
 * reset through their fault proxies ({@link ProxyFaults}).</li>
 * </ul>
 * Deletes, flushes and restarts lose locks ({@link Fault#dataLoss()}); sleeps and resets
 * can only let a lease run out ({@link Fault#lapsing()}).
 */
final class LockLossFaults implements Nemesis.Faults {

	private final RedisServer redis;

	private final ProxyFaults proxyFaults;

	LockLossFaults(RedisServer redis, ProxyFaults proxyFaults) {
		this.redis = redis;
		this.proxyFaults = proxyFaults;
	}

	@Override
	public List<String> round() {
		return List.of("DEL", "DEL", "DEL", "FLUSHALL", "RESTART", "SLEEP", "SLEEP", "RESET");
	}

	@Override
	public Fault apply(String kind, Random random) throws InterruptedException {
		return switch (kind) {
			case "DEL" -> deleteBurst(random);
			case "FLUSHALL" -> {
				try (RedisCli cli = this.redis.cli()) {
					cli.flushAll();
				}
				yield Fault.of(kind, -1, true, true, "every key");
			}
			case "SLEEP" -> sleep(200 + random.nextInt(801));
			case "RESTART", "RESET" -> this.proxyFaults.apply(kind, random);
			default -> throw new IllegalStateException("Unknown fault " + kind);
		};
	}

	/**
	 * Deletes 5 to 15 times, 5 to 50 ms apart, a held lock key when there is one: a
	 * holder of 0 to 1 ms loses its lock only to a delete that falls within its hold.
	 */
	private Fault deleteBurst(Random random) throws InterruptedException {
		List<String> deleted = new ArrayList<>();
		int deletes = 5 + random.nextInt(11);
		try (RedisCli cli = this.redis.cli()) {
			for (int i = 0; i < deletes; i++) {
				List<String> keys = new ArrayList<>();
				for (String name : LockLossSettings.NAMES) {
					keys.add(NemesisSettings.KEY_PREFIX + "{" + name + "}");
					keys.add(NemesisSettings.KEY_PREFIX + "{" + name + "}:rw");
				}
				List<String> held = keys.stream().filter((key) -> isHeld(cli, key)).toList();
				List<String> candidates = held.isEmpty() ? keys : held;
				String key = candidates.get(random.nextInt(candidates.size()));
				Object removed = cli.command("DEL", key);
				deleted.add(key + (Long.valueOf(1).equals(removed) ? "" : " (absent)"));
				Thread.sleep(5 + random.nextInt(46));
			}
		}
		return Fault.of("DEL", -1, true, true, String.join(", ", deleted));
	}

	private static boolean isHeld(RedisCli cli, String key) {
		Object type = cli.command("TYPE", key);
		if ("hash".equals(type)) {
			return true;
		}
		return "string".equals(type) && !LockKeyValues.isFree(cli.get(key));
	}

	private Fault sleep(int millis) {
		String seconds = String.format(Locale.ROOT, "%.3f", millis / 1000.0);
		String detail = "DEBUG SLEEP " + seconds;
		try (RedisCli cli = this.redis.cli(Duration.ofSeconds(10))) {
			cli.command("DEBUG", "SLEEP", seconds);
		}
		catch (RedisErrorReplyException ex) {
			detail += " refused: " + ex.getMessage();
		}
		return Fault.of("SLEEP", -1, true, false, detail);
	}

	@Override
	public void heal() {
		this.proxyFaults.heal();
	}

}
