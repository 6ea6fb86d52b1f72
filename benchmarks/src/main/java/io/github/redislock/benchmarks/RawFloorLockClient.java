package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * The floor every lock pays: {@code SET key token NX PX} to take, a compare-and-delete
 * script to release, on one shared raw Lettuce connection. Two round trips, nothing else:
 * no fencing, no renewal, no waking of waiters (a waiter polls every millisecond).
 */
final class RawFloorLockClient implements LockClient {

	private static final String COMPARE_AND_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
			+ "return redis.call('del', KEYS[1]) end return 0";

	private static final long DEFAULT_LEASE_MILLIS = 30_000;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final String compareAndDeleteSha;

	private final String instance = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	RawFloorLockClient(String host, int port) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
		this.compareAndDeleteSha = this.commands.scriptLoad(COMPARE_AND_DELETE);
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		String token = this.instance + ":" + this.sequence.incrementAndGet();
		SetArgs args = SetArgs.Builder.nx().px((lease != null) ? lease.toMillis() : DEFAULT_LEASE_MILLIS);
		long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
		while (this.commands.set(key, token, args) == null) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The raw floor did not get '" + key + "' within " + WAIT_LIMIT);
			}
			LockSupport.parkNanos(1_000_000);
		}
		return () -> this.commands.evalsha(this.compareAndDeleteSha, ScriptOutputType.INTEGER, new String[] { key },
				token);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
