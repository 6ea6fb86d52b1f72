package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The raw floor's two commands sent through Spring Data Redis, as redis-lock sends its
 * scripts: a {@link StringRedisTemplate} on a Lettuce connection factory. The gap to the
 * raw floor is what the template costs; the gap from here to redis-lock is the lock's
 * own.
 */
final class SpringDataFloorLockClient implements LockClient {

	private static final RedisScript<Long> COMPARE_AND_DELETE = RedisScript
		.of("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", Long.class);

	private static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

	private final LettuceConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	private final String instance = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	SpringDataFloorLockClient(String host, int port) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	@Override
	public Release acquire(String key, @Nullable Duration lease) {
		String token = this.instance + ":" + this.sequence.incrementAndGet();
		Duration leaseTime = (lease != null) ? lease : DEFAULT_LEASE;
		long deadline = System.nanoTime() + WAIT_LIMIT.toNanos();
		while (!Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(key, token, leaseTime))) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The Spring Data floor did not get '" + key + "' within " + WAIT_LIMIT);
			}
			LockSupport.parkNanos(1_000_000);
		}
		return () -> this.redis.execute(COMPARE_AND_DELETE, List.of(key), token);
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
