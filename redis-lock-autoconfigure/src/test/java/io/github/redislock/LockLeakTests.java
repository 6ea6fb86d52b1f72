package io.github.redislock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.contract.LockFixture;
import io.github.redislock.contract.StandaloneLocks;
import io.github.redislock.contract.Topology;
import io.github.redislock.test.RedisCli;
import io.github.redislock.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locking many distinct keys leaves no per-key state behind, in this JVM or in Redis.
 */
class LockLeakTests {

	@RegisterExtension
	static final Topology<RedisServer, StandaloneLocks> topology = Topology.standalone();

	private static final int KEYS = 100_000;

	private static final int THREADS = 4;

	@Test
	void hundredThousandKeysLeaveNothingButExpiringTombstones() throws Exception {
		try (StandaloneLocks locks = topology.fixture()) {
			LockTemplate template = locks.template();
			RedisCli cli = locks.cli();
			long keysBefore = cli.dbSize();
			List<CompletableFuture<Void>> workers = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int first = t * (KEYS / THREADS);
				workers.add(CompletableFuture.runAsync(() -> {
					for (int i = first; i < first + KEYS / THREADS; i++) {
						try (LockHandle handle = template.lock("item:" + i)) {
							assertThat(handle.isHeld()).isTrue();
						}
					}
				}));
			}
			CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).join();

			assertThat(locks.diagnostics(template).heldCount()).isZero();
			assertThat(locks.diagnostics(template).renewedCount()).isZero();
			assertThat(locks.diagnostics(template).subscribedChannelCount()).isZero();
			// Only the tombstones of the releases remain, one per key, each expiring
			// within
			// a minute (they keep the last fencing token and the release's owner), and
			// release marks, each expiring once a replayed release can no longer arrive.
			long markMillis = LockFixture.COMMAND_TIMEOUT.toMillis() + 1000;
			String expiring = """
					local tombstones, lasting, examples = 0, 0, {}
					for _, key in ipairs(redis.call('keys', '*')) do
						local ttl = redis.call('pttl', key)
						local value = redis.call('get', key) or ''
						local tombstone = string.sub(value, 1, 2) == 'r|' and ttl > 0 and ttl <= 60000
						local mark = string.find(key, ':released:') and ttl <= tonumber(ARGV[1]) and ttl ~= -1
						if tombstone then
							tombstones = tombstones + 1
						elseif not mark and ttl ~= -2 then
							lasting = lasting + 1
							if #examples < 5 then
								table.insert(examples, key .. ' = ' .. value .. ' (pttl ' .. ttl .. ')')
							end
						end
					end
					return {tombstones, lasting, table.concat(examples, ', ')}""";
			// A tombstone may have expired if the run took longer than a minute.
			List<?> found = (List<?>) cli.command("EVAL", expiring, "0", Long.toString(markMillis));
			assertThat((Long) found.get(0)).as("tombstones").isLessThanOrEqualTo(KEYS);
			assertThat(found.get(1)).as("keys left that do not expire soon, such as %s", found.get(2)).isEqualTo(0L);
		}
	}

}
