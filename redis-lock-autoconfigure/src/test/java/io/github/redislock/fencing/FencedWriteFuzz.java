package io.github.redislock.fencing;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.StaleFencingTokenException;

/**
 * Threads write a few Redis resources with fencing tokens from a {@link FencingHistory},
 * most of them stale or overtaken, while a reader watches the values. Resource {@code i}
 * is written by {@code set} when {@code i % 3 == 0}, by {@code put} when 1 and by
 * {@code increment} when 2. Besides the history's rules: the reader sees the tokens of
 * each value never decrease, and each no higher than the fence read after it (the stored
 * value is always the one written by the highest token so far), and a counter ends at the
 * number of increments accepted.
 */
final class FencedWriteFuzz {

	static final String SEED_PROPERTY = "redislock.fencing.seed";

	private static final Log logger = LogFactory.getLog(FencedWriteFuzz.class);

	private static final int THREADS = 8;

	private static final int WRITES_PER_THREAD = 150;

	private final FencedRedisOperations fenced;

	private final StringRedisTemplate redis;

	private final List<String> keys;

	private final FencingHistory history;

	FencedWriteFuzz(FencedRedisOperations fenced, StringRedisTemplate redis, List<String> keys, long seed) {
		this.fenced = fenced;
		this.redis = redis;
		this.keys = keys;
		this.history = new FencingHistory(seed);
	}

	/**
	 * Run the writers and the reader, then check the resources.
	 * @return the violations found, empty when none
	 */
	List<String> run() throws Exception {
		WritersAndReader.run(THREADS, (index) -> write(this.history.writer(index)), this::read, Duration.ofSeconds(60));
		for (int index = 0; index < this.keys.size(); index++) {
			String key = this.keys.get(index);
			this.history.checkEnd(key, this.redis.opsForValue().get(FenceKeys.of(key)), valueOf(index, key));
			if (index % 3 == 2) {
				String total = this.redis.opsForValue().get(key);
				long increments = this.history.acceptedWrites(key);
				if (increments > 0 && !Long.toString(increments).equals(total)) {
					this.history.violate("%s: counter at %s after %d accepted increments", key, total, increments);
				}
			}
		}
		logger.info(String.format("%d fenced writes to Redis, %d accepted", THREADS * WRITES_PER_THREAD,
				this.history.acceptedWrites()));
		return this.history.violations();
	}

	private void write(FencingHistory.Writer writer) {
		for (int i = 0; i < WRITES_PER_THREAD; i++) {
			int index = writer.nextIndex(this.keys.size());
			String key = this.keys.get(index);
			long token = writer.nextToken(key);
			String value = token + "/" + Thread.currentThread().getName() + "/" + i;
			try {
				switch (index % 3) {
					case 0 -> this.fenced.set(key, value, token);
					case 1 -> this.fenced.put(key, "value", value, token);
					default -> this.fenced.increment(key, 1, token);
				}
				writer.accepted(key, token);
			}
			catch (StaleFencingTokenException ex) {
				writer.refused(key, token, ex, key);
			}
		}
	}

	private void read(BooleanSupplier writing) {
		Map<String, Long> last = new HashMap<>();
		do {
			for (int index = 0; index < this.keys.size(); index++) {
				String key = this.keys.get(index);
				String value = valueOf(index, key);
				if (value == null) {
					continue;
				}
				long token = Long.parseLong(value.substring(0, value.indexOf('/')));
				String fence = this.redis.opsForValue().get(FenceKeys.of(key));
				long previous = last.getOrDefault(key, 0L);
				if (token < previous || fence == null || Long.parseLong(fence) < token) {
					this.history.violate("reader: %s holds %s after a value of token %d, with fence %s", key, value,
							previous, fence);
				}
				last.put(key, token);
			}
		}
		while (writing.getAsBoolean());
	}

	/** The value with its writer's token, or null for a counter or an unwritten value. */
	private @Nullable String valueOf(int index, String key) {
		return switch (index % 3) {
			case 0 -> this.redis.opsForValue().get(key);
			case 1 -> (String) this.redis.<String, String>opsForHash().get(key, "value");
			default -> null;
		};
	}

}
